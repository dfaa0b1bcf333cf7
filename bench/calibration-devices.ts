// The devices' outage rule's calibration (docs/product.md §12, decisions 180–181; printed by npm run bench
// through bench/calibration.ts): simulated stores of one or two devices heartbeating every 60 s for 6
// months, the server's rules (server/alerts/outages.ts, the same functions) evaluated every minute, a
// member's push after 5, 10 (the default) or 30 minutes. What drops a heartbeat, seeded:
// - a device's short losses: 4 a day, each 1–3 heartbeats in a row (a busy Wi-Fi, a reconnect): a
//   third of them (3 heartbeats) are episodes, the app showing it offline for a moment;
// - a device's own restart: once a month, 2–8 minutes;
// - the store's connection (every device at once): 3 times a month, lognormal, median 6 minutes
//   (σ 1: a third last longer than 10 minutes, some for hours).
// These rates are our assumptions, not measured on real stores: the figures show how the rule behaves
// on them (the target: at most 0.5 pushes a store-month that clear within 5 minutes). Printed: pushes a
// store-month, those that cleared within 5 minutes of the push, the flapping alerts, and how late a push
// came after the chosen time (target ≤ 2 min). Alone: `npx tsx bench/calibration-devices.ts`.
import { pathToFileURL } from 'node:url'
import { heartbeatMs } from '../domain/devices.ts'
import { flappingOf, type Outage, outageChange } from '../server/alerts/outages.ts'
import type { DeviceState } from '../server/alerts/store-state.ts'
import { quantile, seededRandom } from './calibration-model.ts'

const minuteMs = 60_000
const days = 182
const stores = Number(process.env.CALIBRATION_DEVICE_STORES ?? 200)
const monthDays = 30.44
const settings = [5, 10, 30]
/** A device's short losses a day (1–3 heartbeats each). */
const shortPerDay = 4

/** Exponential waiting times of a Poisson process of `perDay` events (in minutes). */
const nextGap = (random: () => number, perDay: number) => (-Math.log(1 - random()) * 24 * 60) / perDay

/** A lognormal duration in minutes (median `median`, σ `sigma`) by Box–Muller. */
function lognormal(random: () => number, median: number, sigma: number) {
  const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
  return median * Math.exp(sigma * z)
}

/** Marks the minutes (heartbeats) lost: `fails[device][minute]`. */
function losses(random: () => number, devices: number, minutes: number) {
  const fails = Array.from({ length: devices }, () => new Uint8Array(minutes))
  const mark = (device: number, from: number, length: number) => {
    for (let m = Math.max(0, Math.floor(from)); m < Math.min(minutes, Math.floor(from + length)); m++)
      (fails[device] as Uint8Array)[m] = 1
  }
  for (let device = 0; device < devices; device++) {
    for (let at = nextGap(random, shortPerDay); at < minutes; at += nextGap(random, shortPerDay))
      mark(device, at, 1 + Math.floor(random() * 3))
    for (let at = nextGap(random, 1 / monthDays); at < minutes; at += nextGap(random, 1 / monthDays))
      mark(device, at, 2 + random() * 6)
  }
  for (let at = nextGap(random, 3 / monthDays); at < minutes; at += nextGap(random, 3 / monthDays)) {
    const length = lognormal(random, 6, 1)
    for (let device = 0; device < devices; device++) mark(device, at, length)
  }
  return fails
}

interface Tally {
  pushes: number
  clearedSoon: number
  unstable: number
  late: number[]
}

/** One store's run under each setting: the rules each minute, the pushes and when their outages ended. */
function runStore(seed: number, tallies: Map<number, Tally>) {
  const random = seededRandom(seed)
  const count = random() < 0.5 ? 1 : 2
  const minutes = days * 24 * 60
  const fails = losses(random, count, minutes)
  const phase = Array.from({ length: count }, () => Math.floor(random() * heartbeatMs))
  const devices: DeviceState[] = phase.map((offset, id) => ({
    id,
    storeId: 1,
    name: `d${id}`,
    seenAt: offset - heartbeatMs,
    pending: 0,
  }))
  const outages: Outage[] = []
  const pushed = settings.map(() => new Map<number, number>())
  const unstable = settings.map(() => new Set<number>())
  for (let m = 0; m < minutes; m++) {
    for (const device of devices)
      if (!(fails[device.id] as Uint8Array)[m]) device.seenAt = m * minuteMs + (phase[device.id] as number)
    const at = (m + 1) * minuteMs - 1
    const open = outages.at(-1)?.endedAt === null ? outages.at(-1) : undefined
    const change = outageChange(devices, open, at)
    if (change && 'open' in change) outages.push({ storeId: 1, ...change.open, endedAt: null })
    else if (change && 'add' in change && open) open.deviceIds = change.add
    else if (change && 'end' in change && open) {
      open.endedAt = at
      settings.forEach((_, index) => {
        const pushAt = pushed[index]?.get(open.since)
        if (pushAt !== undefined && at - pushAt <= 5 * minuteMs)
          (tallies.get(settings[index] as number) as Tally).clearedSoon++
      })
    }
    const current = outages.at(-1)?.endedAt === null ? (outages.at(-1) as Outage) : undefined
    if (!current) continue
    const flapping = flappingOf(outages, current, at)
    settings.forEach((setting, index) => {
      const tally = tallies.get(setting) as Tally
      if (flapping) {
        if (!unstable[index]?.has(flapping.since)) {
          unstable[index]?.add(flapping.since)
          tally.unstable++
        }
      } else if (at - current.since >= setting * minuteMs && !pushed[index]?.has(current.since)) {
        pushed[index]?.set(current.since, at)
        tally.pushes++
        tally.late.push(at - current.since - setting * minuteMs)
      }
    })
  }
}

export function calibrateDevices() {
  const tallies = new Map(
    settings.map((setting) => [setting, { pushes: 0, clearedSoon: 0, unstable: 0, late: [] } as Tally]),
  )
  for (let store = 0; store < stores; store++) runStore(1000 + store, tallies)
  const storeMonths = (stores * days) / monthDays
  return {
    storeMonths: Math.round(storeMonths),
    settings: settings.map((minutes) => {
      const tally = tallies.get(minutes) as Tally
      const late = [...tally.late].sort((a, b) => a - b)
      return {
        minutes,
        pushesPerMonth: tally.pushes / storeMonths,
        clearedSoonPerMonth: tally.clearedSoon / storeMonths,
        unstablePerMonth: tally.unstable / storeMonths,
        lateP95S: (quantile(late, 0.95) ?? 0) / 1000,
        lateMaxS: (late.at(-1) ?? 0) / 1000,
      }
    }),
  }
}

/** The table's lines, for this file alone and for bench/calibration.ts. */
export function deviceCalibrationRows(
  result: ReturnType<typeof calibrateDevices>,
): [string, string, string][] {
  return result.settings.map((s) => [
    `device offline calibration, push after ${s.minutes} min (${result.storeMonths} store-months, assumed drops)`,
    `pushes/store-month ${s.pushesPerMonth.toFixed(2)}, cleared within 5 min ${s.clearedSoonPerMonth.toFixed(2)}, ` +
      `연결이 불안정합니다 ${s.unstablePerMonth.toFixed(2)}; after the chosen time p95 ${s.lateP95S.toFixed(0)} s, max ${s.lateMaxS.toFixed(0)} s`,
    'target <= 0.5 cleared within 5 min a store-month (at 10 min); push <= chosen time + 2 min',
  ])
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = Date.now()
  const result = calibrateDevices()
  for (const [name, value, target] of deviceCalibrationRows(result))
    console.log(`${name}\n    ${value}   [${target}]`)
  console.log(`(${((Date.now() - started) / 1000).toFixed(1)} s)`)
  console.log(JSON.stringify(result))
}
