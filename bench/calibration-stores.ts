// The quiet rule's calibration, its stores: the demo stores' records made exactly as server/db/seed.ts
// makes them (the same MD5 hashes of store, day and cycle, here in JavaScript; the machine and method the
// seed reads from later characters of the hash move no instant, and its refunds are left out), and simulated stores at
// the demo devices' rhythm (device/simulate.ts: hour of day, weekday and month in Korea), either a
// Poisson process of sales or one of visits (a visit starts a Poisson process and brings 1 + Poisson(1.3)
// sales, about 2.3: the first at once, the others 40–90 minutes later, the dryer after the wash). Each
// comes with its true expected sales hour by hour (the oracle's rate).
import { createHash } from 'node:crypto'
import { hourWeights, monthFactor, nextSaleAt, rateAt, weekdayFactor } from '../device/simulate.ts'
import { dayMs, hourMs } from '../domain/calendar.ts'

export interface SimulatedStore {
  name: string
  /** The size class it is reported in. */
  group: string
  sales: number[]
  /** True expected sales of each UTC hour from the span's start. */
  perHour: number[]
}

/** Extra sales a visit brings, on average (a visit makes 1 + this). */
export const extrasPerVisit = 1.3
const md5 = (text: string) => createHash('md5').update(text).digest('hex')
const hex = (text: string) => Number.parseInt(text, 16)
const hours = hourWeights.flatMap((weight, hour) => Array<number>(weight).fill(hour))
const weightTotal = hourWeights.reduce((a, b) => a + b, 0)

/** A demo store's sales in [from, to) and true hourly rate, made as seed.ts makes them (Korea days). */
export function demoStore(storeId: number, perDay: number, from: number, to: number): SimulatedStore {
  const sales: number[] = []
  const perHour = Array<number>(Math.round((to - from) / hourMs)).fill(0)
  for (let day = from - dayMs; day < to + dayMs; day += dayMs) {
    const date = new Date(day).toISOString().slice(0, 10)
    const dow = ((new Date(day).getUTCDay() + 6) % 7) + 1
    const month = new Date(day).getUTCMonth() + 1
    const factor = 0.8 + (0.4 * hex(md5(`day:${storeId}:${date}`).slice(0, 4))) / 65535
    const cycles = Math.round(
      perDay * (weekdayFactor[dow - 1] as number) * (monthFactor[month - 1] as number) * factor,
    )
    hourWeights.forEach((weight, hour) => {
      const index = Math.round((day + hour * hourMs - 9 * hourMs - from) / hourMs)
      if (index >= 0 && index < perHour.length) perHour[index] = (cycles * weight) / weightTotal
    })
    for (let n = 1; n <= cycles; n++) {
      const h = md5(`${storeId}:${date}:${n}`)
      const hour = hours[hex(h.slice(0, 7)) % hours.length] as number
      const at =
        day +
        hour * hourMs +
        (hex(h.slice(7, 11)) % 60) * 60_000 +
        (hex(h.slice(11, 15)) % 60000) -
        9 * hourMs
      if (at >= from && at < to) sales.push(at)
    }
  }
  return {
    name: `demo ${perDay}/day`,
    group: `demo ${perDay}/day`,
    sales: sales.sort((a, b) => a - b),
    perHour,
  }
}

/** A Poisson number of mean `mean` (Knuth's product of uniforms). */
function poisson(mean: number, random: () => number) {
  const limit = Math.exp(-mean)
  let k = 0
  for (let p = random(); p > limit; p *= random()) k++
  return k
}

/** The share of a visit's later sales (40–90 min after a start anywhere in its hour) falling 0, 1 and 2 hours later. */
const laterShares = (() => {
  const shares = [0, 0, 0]
  for (let start = 0.5; start < 60; start++)
    for (let delay = 40.5; delay < 90; delay++) {
      const offset = Math.floor((start + delay) / 60)
      shares[offset] = (shares[offset] as number) + 1 / (60 * 50)
    }
  return shares
})()

/** A simulated store of `perDay` sales a day over [from, to): a Poisson process of sales, or of visits. */
export function simulatedStore(
  kind: 'poisson' | 'visits',
  perDay: number,
  { from, to, random, index }: { from: number; to: number; random: () => number; index: number },
): SimulatedStore {
  const perVisit = kind === 'visits' ? 1 + extrasPerVisit : 1
  const rhythm = { perDay: perDay / perVisit }
  const starts = Array.from(
    { length: Math.round((to - from) / hourMs) },
    (_, hour) => rateAt(rhythm, from + hour * hourMs + hourMs / 2) * hourMs,
  )
  const sales: number[] = []
  for (let at = nextSaleAt(rhythm, from, random); at < to; at = nextSaleAt(rhythm, at, random)) {
    sales.push(at)
    if (kind === 'poisson') continue
    for (let extra = poisson(extrasPerVisit, random); extra > 0; extra--) {
      const later = at + (40 + random() * 50) * 60_000
      if (later < to) sales.push(later)
    }
  }
  const perHour =
    kind === 'poisson'
      ? starts
      : starts.map(
          (visits, hour) =>
            visits +
            extrasPerVisit *
              laterShares.reduce((sum, share, back) => sum + share * (starts[hour - back] ?? 0), 0),
        )
  return {
    name: `${kind} ${perDay}/day #${index + 1}`,
    group: `${kind} ${perDay}/day`,
    sales: sales.sort((a, b) => a - b),
    perHour,
  }
}
