// The machine-silent rule's calibration, its table (decision 191): per size class, the machine alerts
// no machine outage explains, per store-month (all machines of a store together: median, p90, max), the
// delay from a machine's outage to its alert (p50, p90) in minutes and in the machine's expected sales
// lost, beside the ORACLE (a CUSUM on each machine's true expected sales, set to the same false alerts in
// the class); and what the store rule sees of the terminal outages (card sales stop, cash goes on).

import {
  type MachineAlert,
  type MachineReplay,
  machineCurves,
  machineReplay,
  replayRule,
} from './calibration-machines.ts'
import { daysOf, delaysOf, evaluate, hourlyHistory, quantile } from './calibration-model.ts'
import { ExpectedCurve, oracleDelays, oracleThreshold } from './calibration-oracle.ts'
import type { SimulatedStore } from './calibration-stores.ts'

const monthDays = 30.44
const sorted = (values: number[]) => [...values].sort((a, b) => a - b)

interface Span {
  from: number
  scoredFrom: number
  to: number
}

interface MachineRun {
  group: string
  machines: number
  falsePerMonth: number
  falseAlerts: number
  delays: ({ minutes: number; lost: number } | null)[]
  oracleEntries: { curve: ExpectedCurve; sales: number[]; outages: MachineReplay['machineOutages'] }[]
  terminal: ({ minutes: number; lost: number } | null)[]
}

const explains = (o: MachineReplay['machineOutages'][number], alert: MachineAlert) =>
  o.machine === alert.machine && o.start <= alert.at && o.end > alert.since

function runStore(store: SimulatedStore, span: Span, random: () => number): MachineRun {
  const { from, scoredFrom, to } = span
  const perDay = store.sales.length / daysOf(from, to)
  const replay = machineReplay(store, perDay, { from, to, random })
  const alerts = replayRule(replay, scoredFrom, to)
  const falseAlerts = alerts.filter((alert) => !replay.machineOutages.some((o) => explains(o, alert))).length
  const curves = machineCurves(store, replay, from)
  const scored = replay.machineOutages.filter((o) => o.start >= scoredFrom && o.start < to)
  const delays = scored.map((outage) => {
    const first = alerts.find((alert) => explains(outage, alert))
    const curve = curves.get(outage.machine)
    if (!first || !curve) return null
    return { minutes: (first.at - outage.start) / 60_000, lost: curve.between(outage.start, first.at) }
  })
  // The store rule on what reaches the server, for the terminal outages.
  const instants = replay.received.map((sale) => sale.at)
  const storeAlerts = evaluate(instants, hourlyHistory(instants, [2025]), scoredFrom, to)
  const storeCurve = new ExpectedCurve(from, store.perHour)
  const terminal = delaysOf(storeAlerts, replay.terminalOutages, scoredFrom, to).map(({ outage, delayMs }) =>
    delayMs === null
      ? null
      : { minutes: delayMs / 60_000, lost: storeCurve.between(outage.start, outage.start + delayMs) },
  )
  return {
    group: store.group,
    machines: replay.machines.length,
    falsePerMonth: (falseAlerts / daysOf(scoredFrom, to)) * monthDays,
    falseAlerts,
    delays,
    oracleEntries: replay.machines.map((m) => ({
      curve: curves.get(m.machine) as ExpectedCurve,
      sales: replay.received.filter((sale) => sale.machine === m.machine).map((sale) => sale.at),
      outages: replay.machineOutages.filter((o) => o.machine === m.machine),
    })),
    terminal,
  }
}

const percentiles = (values: number[]) => {
  const s = sorted(values)
  return { p50: quantile(s, 0.5), p90: quantile(s, 0.9) }
}

function summary(runs: MachineRun[], span: Span) {
  const falses = sorted(runs.map((run) => run.falsePerMonth))
  const caught = runs.flatMap((run) => run.delays.flatMap((d) => (d ? [d] : [])))
  const scored = { from: span.scoredFrom, to: span.to }
  const entries = runs.flatMap((run) => run.oracleEntries)
  const allowed = Math.max(
    1,
    runs.reduce((sum, run) => sum + run.falseAlerts, 0),
  )
  const oracleAt = oracleThreshold(entries, scored, allowed)
  const oracle = entries.flatMap((e) =>
    oracleDelays(e.curve, e.sales, e.outages, { ...scored, threshold: oracleAt }).flatMap((d) =>
      d ? [d] : [],
    ),
  )
  const terminal = runs.flatMap((run) => run.terminal.flatMap((d) => (d ? [d] : [])))
  return {
    stores: runs.length,
    machines: runs.reduce((sum, run) => sum + run.machines, 0) / runs.length,
    falsePerMonth: { median: quantile(falses, 0.5), p90: quantile(falses, 0.9), max: falses.at(-1) ?? null },
    outages: runs.reduce((sum, run) => sum + run.delays.length, 0),
    alerted: caught.length,
    delayMin: percentiles(caught.map((d) => d.minutes)),
    lostSales: percentiles(caught.map((d) => d.lost)),
    oracle: {
      threshold: oracleAt,
      alerted: oracle.length,
      delayMin: percentiles(oracle.map((d) => d.minutes)),
      lostSales: percentiles(oracle.map((d) => d.lost)),
    },
    terminal: {
      outages: runs.reduce((sum, run) => sum + run.terminal.length, 0),
      alerted: terminal.length,
      delayMin: percentiles(terminal.map((d) => d.minutes)),
      lostSales: percentiles(terminal.map((d) => d.lost)),
    },
  }
}

/** The machine replay of every calibration store, summed up per size class. */
export function machineCalibration(stores: readonly SimulatedStore[], span: Span, random: () => number) {
  const runs = stores.map((store) => runStore(store, span, random))
  const groups = [...new Set(runs.map((run) => run.group))]
  return groups.map((group) => ({
    group,
    ...summary(
      runs.filter((run) => run.group === group),
      span,
    ),
  }))
}

/** The table's lines. */
export function machineRows(classes: ReturnType<typeof machineCalibration>): [string, string, string][] {
  const n = (value: number | null, digits = 0) => (value === null ? '-' : value.toFixed(digits))
  return classes.flatMap((c): [string, string, string][] => [
    [
      `machine-silent calibration, ${c.group} (${c.stores} stores, ~${n(c.machines, 1)} machines)`,
      `false/store-month median ${n(c.falsePerMonth.median, 2)} p90 ${n(c.falsePerMonth.p90, 2)} max ${n(c.falsePerMonth.max, 2)}; ` +
        `delay p50 ${n(c.delayMin.p50)} p90 ${n(c.delayMin.p90)} min, lost p50 ${n(c.lostSales.p50, 1)} p90 ${n(c.lostSales.p90, 1)} sales (${c.alerted}/${c.outages} alerted); ` +
        `oracle (T ${n(c.oracle.threshold, 1)}) p50 ${n(c.oracle.delayMin.p50)} p90 ${n(c.oracle.delayMin.p90)} min, lost p50 ${n(c.oracle.lostSales.p50, 1)} (${c.oracle.alerted} alerted)`,
      'target: all machine alerts <= 1 false/store-month; median delay <= 1.25 x oracle',
    ],
    [
      `terminal outage seen by the store rule, ${c.group}`,
      `${c.terminal.alerted}/${c.terminal.outages} alerted; delay p50 ${n(c.terminal.delayMin.p50)} p90 ${n(c.terminal.delayMin.p90)} min, ` +
        `lost p50 ${n(c.terminal.lostSales.p50, 1)} p90 ${n(c.terminal.lostSales.p90, 1)} sales`,
      'report only (the terminal signal is its own rule)',
    ],
  ])
}
