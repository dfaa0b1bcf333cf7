// The overview's clock (domain/overview-clock.ts, decision 237): the row the app moves by itself, at any
// instant the clock holds, is the row the existing overview computation (storeFigures) gives at that
// instant, over random stores: sales and refunds over ten weeks, silences, a device's clock ahead,
// early January (the year before's weeks) and the end of a month longer than the one before.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { add, finish } from '../../domain/bucket-add.ts'
import { type Buckets, emptyBuckets } from '../../domain/buckets.ts'
import { dayMs, hourMs, startOfDay, yearOf } from '../../domain/calendar.ts'
import { clockEnd, clockFrom, figuresAt, overviewClock } from '../../domain/overview-clock.ts'
import { quietModel } from '../../domain/quiet-model.ts'
import { storeFigures } from '../../domain/store-overview.ts'
import { storeHistory } from '../../domain/usual.ts'
import { seededRandom } from '../../scripts/seeded-random.ts'

interface Store {
  at: number
  seed: number
  /** Visits an hour at the busiest hour. */
  rate: number
  /** Hours without a sale before `at`. */
  silence: number
  /** Sales dated later today than `at` (a device's clock ahead). */
  ahead: number
  refunds: boolean
}

/** The store's buckets of `at`'s year and the year before, from its generated records. */
function bucketsOf({ at, seed, rate, silence, ahead, refunds }: Store): [Buckets, Buckets] {
  const random = seededRandom(seed)
  const year = yearOf(at)
  const buckets = [emptyBuckets(year), emptyBuckets(year - 1)] as [Buckets, Buckets]
  const record = (instant: number, amount: number) => {
    const b = buckets[yearOf(instant) === year ? 0 : 1]
    if (yearOf(instant) < year - 1) return
    const start = Date.UTC(b.year, 0, 1)
    add(b, Math.floor((instant - start) / hourMs), instant - start, amount)
  }
  const quietFrom = at - silence * hourMs
  for (let hour = startOfDay(at) - 70 * dayMs; hour < quietFrom; hour += hourMs) {
    const hourOfDay = new Date(hour).getUTCHours()
    const perHour = hourOfDay < 14 ? rate * (0.3 + random()) : rate * 0.05
    for (let visit = 0; visit < perHour * 2; visit++) {
      if (random() > 0.5) continue
      const instant = hour + Math.floor(random() * hourMs)
      if (instant >= quietFrom) continue
      record(instant, [3000, 4000, 5500][Math.floor(random() * 3)] as number)
      if (refunds && random() < 0.02) record(instant + 1000, -3000)
      if (random() < 0.3) record(instant + 60_000, 0)
    }
  }
  for (let n = 0; n < ahead; n++) {
    const instant = at + Math.floor(random() * (startOfDay(at) + dayMs - at))
    if (instant < startOfDay(at) + dayMs) record(instant, 4000)
  }
  return [finish(buckets[0]), finish(buckets[1])]
}

const instant = fc.oneof(
  fc.integer({ min: Date.UTC(2025, 6, 1), max: Date.UTC(2026, 11, 31) }),
  // Early January: the usual's weeks and the month before are last year's.
  fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2026, 0, 9) }),
  // 29–31 March: the month before is shorter, its whole counts.
  fc.integer({ min: Date.UTC(2026, 2, 29), max: Date.UTC(2026, 3, 1) - 1 }),
)
const stores = fc.record({
  at: instant,
  seed: fc.integer({ min: 1, max: 2 ** 31 }),
  rate: fc.oneof(fc.constant(0), fc.double({ min: 0.2, max: 8, noNaN: true })),
  silence: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 30 }), fc.integer({ min: 24, max: 80 * 24 })),
  ahead: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 2 })),
  refunds: fc.boolean(),
})

/** The usual within the last bits (it is summed over its weeks hour by hour); everything else exactly. */
function expectSameFigures(moved: ReturnType<typeof figuresAt>, computed: ReturnType<typeof figuresAt>) {
  const { usual, ...rest } = moved
  const { usual: computedUsual, ...computedRest } = computed
  expect(rest).toEqual(computedRest)
  expect(usual === null).toBe(computedUsual === null)
  if (usual && computedUsual) {
    expect(usual.sum).toBeCloseTo(computedUsual.sum ?? Number.NaN, 6)
    expect(usual.count).toBeCloseTo(computedUsual.count, 9)
  }
}

describe('the overview moved by the clock (decision 237)', () => {
  it('gives, at every instant the clock holds, the figures the overview computes then', () => {
    const seen = { quiet: 0, turnsQuiet: 0, ahead: 0 }
    fc.assert(
      fc.property(
        stores,
        fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { maxLength: 4 }),
        (store, picks) => {
          const [current, previous] = bucketsOf(store)
          const model = quietModel(storeHistory(current, previous), startOfDay(store.at))
          const made = overviewClock(current, previous, new Date(store.at), model)
          if (!made) throw new Error('the buckets are of the instant’s year')
          const { clock } = made
          const end = clockEnd(clock)
          expect(end).toBeGreaterThan(store.at)
          expect(end).toBeLessThanOrEqual(startOfDay(store.at) + dayMs)
          if (clock.quiet && 'since' in clock.quiet) seen.quiet++
          // As sent at `at`: the hours from its hour.
          const sent = clockFrom(clock, store.at)
          const span = end - store.at
          const instants = [store.at, end - 1, ...picks.map((pick) => store.at + Math.floor(pick * span))]
          for (const t of instants) {
            const computed = storeFigures(current, previous, new Date(t), model)
            if (!computed) throw new Error('no figures')
            expectSameFigures(figuresAt(made.made, sent, t), computed)
            expectSameFigures(figuresAt(made.made, clock, t), computed)
          }
          // A clock that ends before its day: a later hour holds a sale, or the store turns quiet there.
          if (end < startOfDay(store.at) + dayMs) {
            const next = storeFigures(current, previous, new Date(end), model)
            const later = overviewClock(current, previous, new Date(end), model)
            const sold =
              later?.made.today.count !== made.made.today.count ||
              later.made.today.sum !== made.made.today.sum
            if (sold) seen.ahead++
            else {
              seen.turnsQuiet++
              expect(next?.quiet).not.toBeNull()
              expect(storeFigures(current, previous, new Date(end - 1), model)?.quiet).toBeNull()
              expect(later?.clock.quiet).toHaveProperty('since')
            }
          }
        },
      ),
      { numRuns: 150 },
    )
    // The runs reached the clock's every part: stores quiet within it, and clocks ended by a store turning quiet.
    expect(seen.quiet).toBeGreaterThan(0)
    expect(seen.turnsQuiet).toBeGreaterThan(0)
    expect(seen.ahead).toBeGreaterThan(0)
  })

  it('holds the same clock all day while nothing is sold (what a stream compares)', () => {
    const store: Store = {
      at: Date.UTC(2026, 4, 13, 2, 10),
      seed: 7,
      rate: 3,
      silence: 0,
      ahead: 0,
      refunds: true,
    }
    const [current, previous] = bucketsOf(store)
    const model = quietModel(storeHistory(current, previous), startOfDay(store.at))
    const first = overviewClock(current, previous, new Date(store.at), model)
    const end = first ? clockEnd(first.clock) : 0
    expect(overviewClock(current, previous, new Date(end - 1), model)).toEqual(first)
    expect(overviewClock(current, previous, new Date(end), model)).not.toEqual(first)
    // The quiet model's hours are not sent for a store that is not quiet: the clock ends when it would be.
    expect(first?.clock.quiet).toHaveProperty('at')
    expect(end).toBeLessThan(startOfDay(store.at) + dayMs)
  })
})
