// The quiet-store rule's calibration (docs/product.md §2.5, decisions 125–126, printed by npm run bench):
// the demo stores (bench/calibration-stores.ts) and simulated stores of 15, 30, 60, 90 and 200 sales a
// day, each as a Poisson process of sales and as one of visits (about 2.3 sales a visit), 8 weeks of
// history then 12 weeks scored, with whole-store outages of a day starting at seeded random daytime
// minutes (09–21 KST), about one a fortnight. The app's own rule (domain/quiet.ts) runs every minute
// as the server's evaluator would, one alert per quiet episode. Beside it the ORACLE
// (bench/calibration-oracle.ts): a CUSUM that knows the true rate, set to the same false alerts in
// each size class. Printed per class: false alerts a store-month (median, p90, max), the delay from an
// outage's start to its alert (p50, p90) in minutes and in expected sales lost, the oracle's, and
// the thresholds the stores chose. Alone: `npx tsx bench/calibration.ts`; the last line is JSON.
import { pathToFileURL } from 'node:url'
import { hourMs } from '../domain/calendar.ts'
import {
  FALSE_ALERT_BUDGET,
  HISTORY_WEEKS,
  MAX_EXPECTED_SALES,
  MIN_EXPECTED_SALES,
  MIN_HISTORY_WEEKS,
  type QuietModel,
} from '../domain/quiet-model.ts'
import { demoStores } from '../server/db/seed.ts'
import { calibrateDevices, deviceCalibrationRows } from './calibration-devices.ts'
import { machineCalibration, machineRows } from './calibration-machines-report.ts'
import {
  daysOf,
  delaysOf,
  evaluate,
  falseAlerts,
  hourlyHistory,
  injectOutages,
  type Outage,
  quantile,
  seededRandom,
  withoutOutages,
} from './calibration-model.ts'
import { ExpectedCurve, oracleDelays, oracleThreshold } from './calibration-oracle.ts'
import { demoStore, type SimulatedStore, simulatedStore } from './calibration-stores.ts'

const weekMs = 7 * 24 * hourMs
/** History from a Monday; scored from 8 weeks later, for 12 weeks. */
const from = Date.UTC(2025, 0, 6)
const scoredFrom = from + HISTORY_WEEKS * weekMs
const to = scoredFrom + 12 * weekMs
const sizes = [15, 30, 60, 90, 200]
/** Simulated stores of each kind and size. */
const storesPerClass = Number(process.env.CALIBRATION_STORES ?? 4)
const outagesPerStore = 10
const seed = 24
const monthDays = 30.44

interface StoreRun {
  store: SimulatedStore
  salesPerDay: number
  falsePerMonth: number
  thresholds: number[]
  clamped: number
  delays: ({ minutes: number; lost: number } | null)[]
  curve: ExpectedCurve
  received: number[]
  outages: Outage[]
}

function runStore(store: SimulatedStore, random: () => number): StoreRun {
  const outages = injectOutages(random, from, to, outagesPerStore, { hours: [24, 24], daytime: true })
  const received = withoutOutages(store.sales, outages)
  const history = hourlyHistory(received, [2025])
  const models = new Map<number, QuietModel | null>()
  const alerts = evaluate(received, history, scoredFrom, to, 60_000, models)
  const curve = new ExpectedCurve(from, store.perHour)
  const used = [...models.values()].filter((model): model is QuietModel => model !== null)
  return {
    store,
    salesPerDay: store.sales.filter((at) => at >= scoredFrom).length / daysOf(scoredFrom, to),
    falsePerMonth: (falseAlerts(alerts, outages, scoredFrom, to).length / daysOf(scoredFrom, to)) * monthDays,
    thresholds: used.map((model) => model.threshold),
    clamped: used.filter((model) => model.clamped !== null).length,
    delays: delaysOf(alerts, outages, scoredFrom, to).map(({ outage, delayMs }) =>
      delayMs === null
        ? null
        : { minutes: delayMs / 60_000, lost: curve.between(outage.start, outage.start + delayMs) },
    ),
    curve,
    received,
    outages,
  }
}

const sorted = (values: number[]) => [...values].sort((a, b) => a - b)

function summary(runs: StoreRun[]) {
  const falses = sorted(runs.map((run) => run.falsePerMonth))
  const caught = runs.flatMap((run) => run.delays.flatMap((d) => (d ? [d] : [])))
  const span = { from: scoredFrom, to }
  const allowed = Math.max(
    1,
    Math.round(runs.reduce((sum, run) => sum + run.falsePerMonth, 0) * (84 / monthDays)),
  )
  const stores = runs.map((run) => ({ curve: run.curve, sales: run.received, outages: run.outages }))
  const oracleAt = oracleThreshold(stores, span, allowed)
  const oracle = runs.flatMap((run) =>
    oracleDelays(run.curve, run.received, run.outages, { ...span, threshold: oracleAt }).flatMap((d) =>
      d ? [d] : [],
    ),
  )
  const minutes = sorted(caught.map((d) => d.minutes))
  const lost = sorted(caught.map((d) => d.lost))
  const thresholds = sorted(runs.flatMap((run) => run.thresholds))
  return {
    stores: runs.length,
    salesPerDay: runs.reduce((sum, run) => sum + run.salesPerDay, 0) / runs.length,
    falsePerMonth: { median: quantile(falses, 0.5), p90: quantile(falses, 0.9), max: falses.at(-1) ?? null },
    outages: runs.reduce((sum, run) => sum + run.delays.length, 0),
    alerted: caught.length,
    delayMin: { p50: quantile(minutes, 0.5), p90: quantile(minutes, 0.9) },
    lostSales: { p50: quantile(lost, 0.5), p90: quantile(lost, 0.9) },
    threshold: { p50: quantile(thresholds, 0.5), min: thresholds[0] ?? null, max: thresholds.at(-1) ?? null },
    clampedDays: runs.reduce((sum, run) => sum + run.clamped, 0),
    oracle: {
      threshold: oracleAt,
      alerted: oracle.length,
      delayMin: {
        p50: quantile(sorted(oracle.map((d) => d.minutes)), 0.5),
        p90: quantile(sorted(oracle.map((d) => d.minutes)), 0.9),
      },
      lostSales: {
        p50: quantile(sorted(oracle.map((d) => d.lost)), 0.5),
        p90: quantile(sorted(oracle.map((d) => d.lost)), 0.9),
      },
    },
  }
}

export function calibrate() {
  const random = seededRandom(seed)
  const stores: SimulatedStore[] = demoStores.map((store, index) =>
    demoStore(index + 1, store.cyclesPerDay, from, to),
  )
  for (const kind of ['poisson', 'visits'] as const)
    for (const perDay of sizes)
      for (let index = 0; index < storesPerClass; index++)
        stores.push(simulatedStore(kind, perDay, { from, to, random, index }))
  const runs = stores.map((store) => runStore(store, random))
  const groups = [...new Set(runs.map((run) => run.store.group))]
  const all = sorted(runs.map((run) => run.falsePerMonth))
  return {
    rule: { HISTORY_WEEKS, MIN_HISTORY_WEEKS, MIN_EXPECTED_SALES, MAX_EXPECTED_SALES, FALSE_ALERT_BUDGET },
    span: { from: new Date(from).toISOString(), scoredFrom: new Date(scoredFrom).toISOString(), weeks: 12 },
    classes: groups.map((group) => ({ group, ...summary(runs.filter((run) => run.store.group === group)) })),
    // The devices' outage rule (decisions 180–181): its own file.
    devices: calibrateDevices(),
    fleet: {
      stores: runs.length,
      falsePerMonthMean: all.reduce((a, b) => a + b, 0) / all.length,
      falsePerMonthP90: quantile(all, 0.9),
      falsePerMonthMax: all.at(-1) ?? null,
    },
    // The machine-silent rule and the terminal outages (bench/calibration-machines*.ts), on the same stores.
    machines: machineCalibration(stores, { from, scoredFrom, to }, seededRandom(seed + 1)),
  }
}

/** The table's lines, for this file alone and for bench/run.ts. */
export function calibrationRows(result: ReturnType<typeof calibrate>): [string, string, string][] {
  const n = (value: number | null, digits = 0) => (value === null ? '-' : value.toFixed(digits))
  const rows: [string, string, string][] = result.classes.map((c) => [
    `quiet calibration, ${c.group} (~${Math.round(c.salesPerDay)} sales/day, ${c.stores} stores)`,
    `false/store-month median ${n(c.falsePerMonth.median, 2)} p90 ${n(c.falsePerMonth.p90, 2)} max ${n(c.falsePerMonth.max, 2)}; ` +
      `delay p50 ${n(c.delayMin.p50)} p90 ${n(c.delayMin.p90)} min, lost p50 ${n(c.lostSales.p50, 1)} p90 ${n(c.lostSales.p90, 1)} sales (${c.alerted}/${c.outages} alerted); ` +
      `oracle (T ${n(c.oracle.threshold, 1)}) p50 ${n(c.oracle.delayMin.p50)} p90 ${n(c.oracle.delayMin.p90)} min, lost p50 ${n(c.oracle.lostSales.p50, 1)}; ` +
      `T p50 ${n(c.threshold.p50, 1)} [${n(c.threshold.min, 1)}–${n(c.threshold.max, 1)}], clamped ${c.clampedDays} store-days`,
    'target <= 1 false/store-month; median delay <= 1.25 x oracle',
  ])
  const f = result.fleet
  rows.push([
    `quiet calibration, fleet (${f.stores} stores)`,
    `false/store-month mean ${f.falsePerMonthMean.toFixed(2)}, p90 ${n(f.falsePerMonthP90, 2)}, max ${n(f.falsePerMonthMax, 2)}`,
    'target mean <= 1.2, p90 <= 2.5',
  ])
  rows.push(...deviceCalibrationRows(result.devices))
  rows.push(...machineRows(result.machines))
  return rows
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = Date.now()
  const result = calibrate()
  const rows = calibrationRows(result)
  for (const [name, value, target] of rows) console.log(`${name}\n    ${value}   [${target}]`)
  console.log(`(${((Date.now() - started) / 1000).toFixed(1)} s)`)
  console.log(JSON.stringify(result))
}
