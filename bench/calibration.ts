// The quiet-store rule's calibration (docs/product.md decisions 125–126, printed by npm run bench): a year of the
// demo stores' records, made exactly as server/db/seed.ts makes them (the same MD5 hashes of store, day
// and cycle, here in JavaScript), and of a sparser rhythm (the live demo devices' Poisson process,
// device/simulate.ts, at 20 cycles a day, seeded), with outages of 1–6 hours injected at seeded random
// times. The app's own rule (domain/quiet.ts) runs every minute of the year as the server's
// evaluator would, one alert per quiet episode. Printed: false alerts (no outage in their quiet span)
// per store and month, the delay from a daytime outage's start to its alert, and the outages never
// alerted. Alone: `npx tsx bench/calibration.ts` (about a minute); the last line is JSON.
import { createHash } from 'node:crypto'
import { pathToFileURL } from 'node:url'
import { hourWeights, monthFactor, nextSaleAt, weekdayFactor } from '../device/simulate.ts'
import { dayMs, hourMs, yearStart } from '../domain/calendar.ts'
import { HISTORY_WEEKS, MIN_EXPECTED_SALES, MIN_HISTORY_WEEKS } from '../domain/quiet.ts'
import { demoStores } from '../server/db/seed.ts'
import {
  evaluate,
  hourlyHistory,
  injectOutages,
  quantile,
  score,
  seededRandom,
  withoutOutages,
} from './calibration-model.ts'

/** The year scored; the year before it is the history the rule starts with (the demo seeds from 1 January of last year). */
const year = 2025
/** Outages injected a store a year (history year included): about one a week. */
const outagesPerYear = 50
const seed = 24

const md5 = (text: string) => createHash('md5').update(text).digest('hex')
const hex = (text: string) => Number.parseInt(text, 16)
const hours = hourWeights.flatMap((weight, hour) => Array<number>(weight).fill(hour))

/** The demo store's sale instants from 1 January of `from` to 31 December of `to` (Korea days), as seed.ts makes them. */
function demoSales(storeId: number, perDay: number, fromYear: number, toYear: number): number[] {
  const sales: number[] = []
  for (let day = Date.UTC(fromYear, 0, 1); day < Date.UTC(toYear + 1, 0, 1); day += dayMs) {
    const date = new Date(day).toISOString().slice(0, 10)
    const dow = ((new Date(day).getUTCDay() + 6) % 7) + 1
    const month = new Date(day).getUTCMonth() + 1
    const factor = 0.8 + (0.4 * hex(md5(`day:${storeId}:${date}`).slice(0, 4))) / 65535
    const cycles = Math.round(
      perDay * (weekdayFactor[dow - 1] as number) * (monthFactor[month - 1] as number) * factor,
    )
    for (let n = 1; n <= cycles; n++) {
      const h = md5(`${storeId}:${date}:${n}`)
      const hour = hours[hex(h.slice(0, 7)) % hours.length] as number
      const minutes = hex(h.slice(7, 11)) % 60
      const ms = hex(h.slice(11, 15)) % 60000
      sales.push(day + hour * hourMs + minutes * 60_000 + ms - 9 * hourMs)
    }
  }
  return sales.sort((a, b) => a - b)
}

/** A store of the sparser rhythm: the demo devices' Poisson process at `perDay` cycles a day, seeded. */
function sparseSales(perDay: number, from: number, to: number, random: () => number): number[] {
  const sales: number[] = []
  for (let at = nextSaleAt({ perDay }, from, random); at < to; at = nextSaleAt({ perDay }, at, random))
    sales.push(at)
  return sales
}

export interface StoreCalibration {
  store: string
  salesPerDay: number
  outages: number
  falseAlerts: number
  falsePerMonthMean: number
  falsePerMonthMax: number
  daytimeOutages: number
  daytimeDelayMedianMin: number | null
  daytimeDelayP90Min: number | null
  neverAlerted: number
  daytimeNeverAlerted: number
}

export function calibrate(): {
  thresholds: { HISTORY_WEEKS: number; MIN_HISTORY_WEEKS: number; MIN_EXPECTED_SALES: number }
  year: number
  stores: StoreCalibration[]
  all: Omit<StoreCalibration, 'store' | 'salesPerDay'>
} {
  const from = yearStart(year - 1)
  const start = yearStart(year)
  const end = yearStart(year + 1)
  const random = seededRandom(seed)
  const stores = [
    ...demoStores.map((store, index) => ({
      name: `demo ${store.cyclesPerDay}/day`,
      sales: demoSales(index + 1, store.cyclesPerDay, year - 1, year),
    })),
    { name: 'sparse 20/day', sales: sparseSales(20, from, end, random) },
  ]
  const allDelays: number[] = []
  let allOutages = 0
  let allDaytime = 0
  let allNever = 0
  let allDaytimeNever = 0
  const allMonths: number[] = []
  const results = stores.map(({ name, sales }) => {
    const outages = injectOutages(random, from, end, outagesPerYear * 2)
    const received = withoutOutages(sales, outages)
    const history = hourlyHistory(received, [year - 1, year])
    const alerts = evaluate(received, history, start, end)
    const { falsePerMonth, delays } = score(alerts, outages, year)
    const daytime = delays.filter((d) => d.daytime)
    const daytimeDelays = daytime
      .flatMap((d) => (d.delayMs === null ? [] : [d.delayMs / 60_000]))
      .sort((a, b) => a - b)
    allDelays.push(...daytimeDelays)
    const never = delays.filter((d) => d.delayMs === null).length
    const daytimeNever = daytime.filter((d) => d.delayMs === null).length
    allOutages += delays.length
    allDaytime += daytime.length
    allNever += never
    allDaytimeNever += daytimeNever
    allMonths.push(...falsePerMonth)
    const falseAlerts = falsePerMonth.reduce((a, b) => a + b, 0)
    return {
      store: name,
      salesPerDay: Math.round(sales.filter((at) => at >= start && at < end).length / 365),
      outages: delays.length,
      falseAlerts,
      falsePerMonthMean: falseAlerts / 12,
      falsePerMonthMax: Math.max(...falsePerMonth),
      daytimeOutages: daytime.length,
      daytimeDelayMedianMin: quantile(daytimeDelays, 0.5),
      daytimeDelayP90Min: quantile(daytimeDelays, 0.9),
      neverAlerted: never,
      daytimeNeverAlerted: daytimeNever,
    }
  })
  allDelays.sort((a, b) => a - b)
  const allFalse = allMonths.reduce((a, b) => a + b, 0)
  return {
    thresholds: { HISTORY_WEEKS, MIN_HISTORY_WEEKS, MIN_EXPECTED_SALES },
    year,
    stores: results,
    all: {
      outages: allOutages,
      falseAlerts: allFalse,
      falsePerMonthMean: allFalse / allMonths.length,
      falsePerMonthMax: Math.max(...allMonths),
      daytimeOutages: allDaytime,
      daytimeDelayMedianMin: quantile(allDelays, 0.5),
      daytimeDelayP90Min: quantile(allDelays, 0.9),
      neverAlerted: allNever,
      daytimeNeverAlerted: allDaytimeNever,
    },
  }
}

/** The table's lines, for this file alone and for bench/run.ts. */
export function calibrationRows(result: ReturnType<typeof calibrate>): [string, string, string][] {
  const min = (n: number | null) => (n === null ? '-' : `${Math.round(n)} min`)
  const { HISTORY_WEEKS: weeks, MIN_HISTORY_WEEKS: least, MIN_EXPECTED_SALES: expected } = result.thresholds
  const rule = `${weeks} weeks, at least ${least}, ${expected} sales expected`
  return [
    ...result.stores.map((s) => ({ ...s, label: `${s.store}, ~${s.salesPerDay} sales/day` })),
    {
      ...result.all,
      label: 'all stores',
    },
  ].flatMap((s) => [
    [
      `quiet calibration ${result.year} (${rule}), ${s.label}: false alerts`,
      `${s.falseAlerts} in the year, ${s.falsePerMonthMean.toFixed(2)} a month on average, at most ${s.falsePerMonthMax} in a month`,
      'target <= 1 a store and month',
    ],
    [
      `quiet calibration ${result.year}, ${s.label}: daytime outages (09–21 KST) to the alert`,
      `median ${min(s.daytimeDelayMedianMin)}, p90 ${min(s.daytimeDelayP90Min)} (${s.daytimeOutages - s.daytimeNeverAlerted} of ${s.daytimeOutages} alerted); never alerted: ${s.neverAlerted} of ${s.outages} outages`,
      'target median <= 60 min, p90 <= 120 min',
    ],
  ])
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = Date.now()
  const result = calibrate()
  const rows = calibrationRows(result)
  const width = Math.max(...rows.map(([name]) => name.length))
  for (const [name, value, target] of rows) console.log(`${name.padEnd(width)}  ${value}   [${target}]`)
  console.log(`(${((Date.now() - started) / 1000).toFixed(1)} s)`)
  console.log(JSON.stringify(result))
}
