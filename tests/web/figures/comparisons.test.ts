// The sales screen's comparisons (src/figures/: periods.ts, usual.ts, hour-grid.ts), each against a slow reference
// that works from the raw records: it filters them by instant ranges with Date arithmetic and sums.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Buckets } from '../../../domain/buckets.ts'
import { busiestHours, hourGrid, weekdayLabels } from '../../../domain/hour-grid.ts'
import { change, monthComparison, periodTotals, yearComparison } from '../../../domain/periods.ts'
import { monthProjection, todayComparison } from '../../../domain/usual.ts'
import { bucketUsage } from '../../../src/workers/bucket-exact.ts'

type Row = { at: number; amount: number }
const hour = 3_600_000
const day = 24 * hour
const utc = Date.UTC

const canonicalBytes = (rows: readonly Row[]) =>
  new TextEncoder().encode(
    `{"usages":[${rows.map((r) => `{"createdAt":"${new Date(r.at).toISOString()}","amount":${r.amount}}`).join(',')}]}`,
  )
const bucketsOf = (rows: readonly Row[], year: number) => bucketUsage(canonicalBytes(rows), year)

// ---- The reference: raw records, Date arithmetic, nothing shared with the module. ----

/**
 * Sum and sales of the records in [from, to), each record weighted by the part of its UTC hour that
 * [from, to) covers; only records of the years given count (the others' buckets are "missing").
 */
function refTotals(rows: readonly Row[], years: readonly number[], from: number, to: number) {
  let sum = 0
  let count = 0
  for (const { at, amount } of rows) {
    if (!years.includes(new Date(at).getUTCFullYear())) continue
    const hourStart = at - (at % hour)
    const covered = Math.max(0, Math.min(to, hourStart + hour) - Math.max(from, hourStart))
    if (covered === 0) continue
    sum += (amount * covered) / hour
    if (amount > 0) count += covered / hour
  }
  return { sum, count }
}
const hourEnd = (ms: number) => ms - (ms % hour) + hour
const refChange = (current: number, previous: number | null) =>
  previous === null || previous <= 0 ? null : (current - previous) / previous

function refCompare(
  rows: readonly Row[],
  years: readonly number[],
  start: number,
  end: number,
  previousStart: number,
  previousAvailable: boolean,
  now: number,
) {
  let current: { sum: number; count: number }
  let previous: { sum: number; count: number } | null = null
  if (now < start) current = refTotals(rows, years, start, end)
  else if (now >= end) {
    current = refTotals(rows, years, start, end)
    if (previousAvailable) previous = refTotals(rows, years, previousStart, start)
  } else {
    current = refTotals(rows, years, start, Math.min(end, hourEnd(now)))
    if (previousAvailable)
      previous = refTotals(rows, years, previousStart, Math.min(start, previousStart + (now - start)))
  }
  if (previous && previous.sum === 0 && previous.count === 0) previous = null
  return {
    sum: current.sum,
    count: current.count,
    average: current.count > 0 ? current.sum / current.count : null,
    previousSum: previous?.sum ?? null,
    previousCount: previous?.count ?? null,
    change: refChange(current.sum, previous?.sum ?? null),
  }
}

/** The usual sum of a weekday's hour [h, h+1) over the 56 days before today: available days only. */
function refProjection(
  rows: readonly Row[],
  years: readonly number[],
  year: number,
  month: number,
  now: number,
) {
  const start = utc(year, month - 1, 1)
  const end = utc(year, month, 1)
  if (now < start || now >= end) return null
  const today = utc(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate())
  const history = (weekday: number) => {
    const days: number[] = []
    for (let back = 1; back <= 56; back++) {
      const d = today - back * day
      if (new Date(d).getUTCDay() === weekday && years.includes(new Date(d).getUTCFullYear())) days.push(d)
    }
    return days
  }
  const usual = (weekday: number, from: number, to: number) => {
    const days = history(weekday)
    if (days.length === 0) return null
    let total = 0
    for (const d of days) total += refTotals(rows, years, d + from, d + to).sum
    return total / days.length
  }
  let projection = refTotals(rows, years, start, hourEnd(now)).sum
  const elapsed = now - today
  const restOfToday = usual(new Date(today).getUTCDay(), elapsed, day)
  if (restOfToday === null) return null
  projection += restOfToday
  for (let d = today + day; d < end; d += day) {
    const whole = usual(new Date(d).getUTCDay(), 0, day)
    if (whole === null) return null
    projection += whole
  }
  return projection
}

function refToday(rows: readonly Row[], years: readonly number[], now: number) {
  const today = now - (now % day)
  const current = refTotals(rows, years, today, hourEnd(now))
  const weeks = [1, 2, 3, 4]
    .map((week) => today - week * 7 * day)
    .filter((d) => years.includes(new Date(d).getUTCFullYear()))
    .map((d) => refTotals(rows, years, d, d + (now - today)))
  const usualSum = weeks.reduce((a, w) => a + w.sum, 0) / weeks.length
  const usualCount = weeks.reduce((a, w) => a + w.count, 0) / weeks.length
  const usual = weeks.length > 0 && (usualSum !== 0 || usualCount !== 0)
  return {
    sum: current.sum,
    count: current.count,
    usualSum: usual ? usualSum : null,
    usualCount: usual ? usualCount : null,
    change: usual ? refChange(current.sum, usualSum) : null,
  }
}

function refGrid(rows: readonly Row[], year: number, month: number, offsetMinutes: number) {
  const grid = Array.from({ length: 7 }, () => Array(24).fill(0) as number[])
  for (const { at, amount } of rows) {
    const date = new Date(at)
    if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1) continue
    const local = new Date(at - (at % hour) + Math.round(offsetMinutes / 60) * hour)
    // getUTCDay counts from Sunday; the grid's rows from Monday, by their labels.
    const row = grid['월화수목금토일'.indexOf('일월화수목금토'[local.getUTCDay()] as string)] as number[]
    row[local.getUTCHours()] = (row[local.getUTCHours()] as number) + amount
  }
  return grid
}

// ---- Comparing with a tolerance: prorated figures are sums of fractions in another order. ----

function close(actual: number | null | undefined, expected: number | null | undefined, what: string) {
  if (expected === null || expected === undefined) {
    expect(actual, what).toBe(expected)
    return
  }
  expect(actual, what).not.toBeNull()
  expect(Math.abs((actual as number) - expected), `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(
    1e-6 * Math.max(1, Math.abs(expected)),
  )
}
function closeObject(
  actual: Record<string, unknown> | null,
  expected: Record<string, number | null>,
  what: string,
) {
  expect(actual, what).not.toBeNull()
  for (const [key, value] of Object.entries(expected))
    close(actual?.[key] as number | null, value, `${what} ${key}`)
}

// ---- Random records near a random `now`, over the year of now and the one before. ----

const nowOf = (year: number) =>
  fc.oneof(
    fc.constantFrom(
      utc(year, 0, 1, 0, 20), // the first hour of the year
      utc(year, 0, 1),
      utc(year, 2, 1, 0, 40), // the first hour of March (after 29 February in a leap year)
      utc(year, 1, 29, 13, 30), // 29 February, or 1 March
      utc(year, 11, 31, 23, 59, 59, 999), // the last instant of the year
      utc(year, 10, 24, 14, 47, 30), // the middle of an hour
      utc(year, 0, 8, 9, 15), // early January: the 4 and 8 weeks before reach into last year
    ),
    fc.integer({ min: utc(year, 0, 1), max: utc(year + 1, 0, 1) - 1 }),
  )
const amountArb = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 20 }).map((n) => n * 500) },
  { weight: 1, arbitrary: fc.integer({ min: -8000, max: -1 }) },
  { weight: 1, arbitrary: fc.constant(0) },
)
/** A record near `now`, anywhere in its year or the one before, or on an edge. */
const rowArb = (year: number, now: number) =>
  fc.record({
    at: fc.oneof(
      fc.integer({ min: now - 70 * day, max: now }),
      fc.integer({ min: utc(year - 1, 0, 1), max: utc(year + 1, 0, 1) - 1 }),
      fc.constantFrom(
        utc(year, 0, 1),
        utc(year, 2, 1) - 1,
        utc(year - 1, 11, 31, 23, 30),
        now,
        now - 7 * day,
      ),
    ),
    amount: amountArb,
  })
const scenario = fc
  .constantFrom(2024, 2025, 2026)
  .chain((year) => fc.tuple(fc.constant(year), nowOf(year)))
  .chain(([year, now]) =>
    fc.record({
      year: fc.constant(year),
      now: fc.constant(now),
      rows: fc.oneof(
        fc.array(rowArb(year, now), { maxLength: 5 }),
        fc.array(rowArb(year, now), { minLength: 50, maxLength: 400, size: 'max' }),
      ),
      withPrevious: fc.boolean(),
      month: fc.integer({ min: 1, max: 12 }),
      offsetMinutes: fc.constantFrom(540, 0, -300, 330, -210, 345, 600),
    }),
  )

const setup = ({ year, rows, withPrevious }: { year: number; rows: Row[]; withPrevious: boolean }) => {
  const current = bucketsOf(rows, year)
  const previous: Buckets | undefined = withPrevious ? bucketsOf(rows, year - 1) : undefined
  const years = withPrevious ? [year, year - 1] : [year]
  return { current, previous, years }
}
const runs = { seed: 20261124, numRuns: 150 }
/** How many generated cases gave a figure, not null: the properties must not pass on nulls alone. */
const given = { previousYear: 0, previousMonth: 0, projection: 0, usual: 0 }

describe('comparisons against a slow reference over the raw records', () => {
  it('periodTotals: the hours of [from, to), an hour covered in part counting for that part', () => {
    fc.assert(
      fc.property(scenario, fc.integer({ min: -3 * day, max: 3 * day }), (s, span) => {
        const { current, years } = setup({ ...s, withPrevious: false })
        const [from, to] = [s.now, s.now + span].sort((a, b) => a - b) as [number, number]
        closeObject(periodTotals(current, from, to) as never, refTotals(s.rows, [s.year], from, to), 'totals')
        expect(years).toContain(s.year)
      }),
      runs,
    )
  })

  it('yearComparison: up to now against the previous year up to the same elapsed time; past years whole', () => {
    fc.assert(
      fc.property(scenario, fc.integer({ min: -1, max: 1 }), (s, yearsFromNow) => {
        const { current, previous, years } = setup(s)
        // The same buckets, looked at from a year before (a future year), now, or a year later (a past year).
        const now = utc(s.year + yearsFromNow, 5, 15) + (s.now % day)
        const at = yearsFromNow === 0 ? s.now : now
        const expected = refCompare(
          s.rows,
          years,
          utc(s.year, 0, 1),
          utc(s.year + 1, 0, 1),
          utc(s.year - 1, 0, 1),
          s.withPrevious,
          at,
        )
        closeObject(yearComparison(current, previous, new Date(at)) as never, expected, 'year')
        if (expected.previousSum !== null) given.previousYear++
      }),
      runs,
    )
  })

  it('monthComparison: up to now against the month before up to the same elapsed time, capped at its end', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const { current, previous, years } = setup(s)
        const before = s.month === 1 ? previous : current
        const previousAvailable = s.month !== 1 || s.withPrevious
        const expected = refCompare(
          s.rows,
          years,
          utc(s.year, s.month - 1, 1),
          utc(s.year, s.month, 1),
          utc(s.year, s.month - 2, 1),
          previousAvailable,
          s.now,
        )
        closeObject(
          monthComparison(current, s.month, before, new Date(s.now)) as never,
          expected,
          `month ${s.month}`,
        )
        // And the month `now` falls in, which is the current month.
        const month = new Date(s.now).getUTCMonth() + 1
        const expectedNow = refCompare(
          s.rows,
          years,
          utc(s.year, month - 1, 1),
          utc(s.year, month, 1),
          utc(s.year, month - 2, 1),
          month !== 1 || s.withPrevious,
          s.now,
        )
        closeObject(
          monthComparison(current, month, month === 1 ? previous : current, new Date(s.now)) as never,
          expectedNow,
          `current month ${month}`,
        )
        if (expectedNow.previousSum !== null) given.previousMonth++
      }),
      runs,
    )
  })

  it('monthProjection: so far, plus the usual of each remaining hour of today and day of the month by weekday', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const { current, previous, years } = setup(s)
        const month = new Date(s.now).getUTCMonth() + 1
        const expected = refProjection(s.rows, years, s.year, month, s.now)
        close(monthProjection(current, previous, month, new Date(s.now)), expected, 'projection')
        if (expected !== null) given.projection++
        // Another month has no projection.
        if (s.month !== month) expect(monthProjection(current, previous, s.month, new Date(s.now))).toBeNull()
      }),
      runs,
    )
  })

  it('todayComparison: today up to now against the same weekday of the 4 weeks before, up to the same time', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const { current, previous, years } = setup(s)
        const today = todayComparison(current, previous, new Date(s.now))
        const expected = refToday(s.rows, years, s.now)
        closeObject(today as never, expected, 'today')
        if (expected.usualSum !== null) given.usual++
        const sales = s.rows.filter((r) => r.amount > 0 && new Date(r.at).getUTCFullYear() === s.year)
        expect(today?.lastSaleAt).toBe(sales.length ? Math.max(...sales.map((r) => r.at)) : null)
      }),
      runs,
    )
  })

  it('hourGrid: the month’s sales by local weekday (Monday first) and hour, the offset rounded to the hour', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const { current } = setup(s)
        const grid = hourGrid(current, s.month, s.offsetMinutes)
        expect(grid).toEqual(refGrid(s.rows, s.year, s.month, s.offsetMinutes))
        expect(grid.flat().reduce((a, b) => a + b, 0)).toBe(current.months[s.month - 1])
      }),
      runs,
    )
  })

  it('compared real figures, not only nulls, in most generated cases', () => {
    // Of 150 cases each: half without last year's buckets, a third of the years in the future.
    expect(given.previousYear).toBeGreaterThan(20)
    expect(given.previousMonth).toBeGreaterThan(30)
    expect(given.projection).toBeGreaterThan(60)
    expect(given.usual).toBeGreaterThan(40)
  })
})

describe('the rules, in words', () => {
  const buckets = (rows: Row[], year = 2026) => bucketsOf(rows, year)

  it('change is the ratio to the previous figure, and null against nothing, zero or a net refund', () => {
    expect(change(1123, 1000)).toBeCloseTo(0.123)
    expect(change(960, 1000)).toBeCloseTo(-0.04)
    expect(change(1000, null)).toBeNull()
    expect(change(1000, 0)).toBeNull()
    expect(change(1000, -500)).toBeNull()
  })

  it('prorates the hour the previous period is cut in: half an hour counts half its sum', () => {
    // Now is 10:30 on 2 March; the month before is cut at 10:30 on 2 February.
    const now = new Date(utc(2026, 2, 2, 10, 30))
    const rows = [
      { at: utc(2026, 1, 2, 10, 50), amount: 4000 },
      { at: utc(2026, 1, 1, 9, 0), amount: 1000 },
      { at: utc(2026, 2, 2, 10, 10), amount: 3000 },
    ]
    const month = monthComparison(buckets(rows), 3, buckets(rows), now)
    expect(month.sum).toBe(3000)
    expect(month.previousSum).toBe(1000 + 2000)
    expect(month.change).toBeCloseTo(0)
  })

  it('counts the whole current hour now falls in', () => {
    const rows = [{ at: utc(2026, 10, 24, 14, 5), amount: 5000 }]
    expect(yearComparison(buckets(rows), undefined, new Date(utc(2026, 10, 24, 14, 0, 0, 1))).sum).toBe(5000)
  })

  it('shows no comparison (null) when last year is missing or has no sales at all', () => {
    const rows = [{ at: utc(2026, 0, 5), amount: 5000 }]
    const now = new Date(utc(2026, 5, 1))
    expect(yearComparison(buckets(rows), undefined, now)).toMatchObject({ previousSum: null, change: null })
    expect(yearComparison(buckets(rows), buckets([], 2025), now)).toMatchObject({
      previousSum: null,
      change: null,
    })
    // Buckets of another year than the one before count as missing.
    expect(yearComparison(buckets(rows), buckets(rows), now).previousSum).toBeNull()
  })

  it('compares a leap year by elapsed time: on 31 December 2024, all of 2023', () => {
    const rows2023 = [{ at: utc(2023, 11, 31, 22), amount: 7000 }]
    const now = new Date(utc(2024, 11, 31, 12))
    expect(yearComparison(buckets([], 2024), buckets(rows2023, 2023), now).previousSum).toBe(7000)
  })

  it('compares a past year whole, and gives a future year no comparison', () => {
    const rows = [{ at: utc(2025, 11, 31, 23), amount: 2000 }]
    const thisYear = buckets([{ at: utc(2026, 6, 1), amount: 3000 }])
    expect(yearComparison(thisYear, buckets(rows, 2025), new Date(utc(2027, 0, 1)))).toMatchObject({
      sum: 3000,
      count: 1,
      average: 3000,
      previousSum: 2000,
      change: 0.5,
    })
    expect(yearComparison(thisYear, buckets(rows, 2025), new Date(utc(2025, 5, 1)))).toMatchObject({
      change: null,
    })
  })

  it('compares January against December of the previous year’s buckets', () => {
    const december = buckets([{ at: utc(2025, 11, 3, 8), amount: 4000 }], 2025)
    const january = buckets([{ at: utc(2026, 0, 3, 7), amount: 5000 }])
    const result = monthComparison(january, 1, december, new Date(utc(2026, 0, 3, 9)))
    expect(result).toMatchObject({ sum: 5000, previousSum: 4000, change: 0.25 })
    expect(monthComparison(january, 1, undefined, new Date(utc(2026, 0, 3, 9))).previousSum).toBeNull()
  })

  it('leaves days without buckets out of the usual, and has no projection when a weekday has no history', () => {
    // 3 January 2026: of the 8 weeks before, only 1 and 2 January are in this year's buckets, so
    // without last year's no other weekday has a usual day.
    const now = new Date(utc(2026, 0, 3, 12))
    expect(monthProjection(buckets([]), undefined, 1, now)).toBeNull()
    expect(monthProjection(buckets([]), buckets([], 2025), 1, now)).toBe(0)
  })

  it('projects a remaining day by the average of its weekday over the last 8 weeks', () => {
    // 30 November 2026 is a Monday; now is 23:00 on Sunday 29 November. Each of the 8 Mondays before
    // had 8,000 won at 10:00; each Sunday 1,000 won at 23:30.
    const rows: Row[] = []
    for (let week = 1; week <= 8; week++) {
      rows.push({ at: utc(2026, 10, 30, 10) - week * 7 * day, amount: 8000 })
      rows.push({ at: utc(2026, 10, 29, 23, 30) - week * 7 * day, amount: 1000 })
    }
    rows.push({ at: utc(2026, 10, 29, 22), amount: 500 })
    const sundays = rows.filter((r) => r.at < utc(2026, 10, 1))
    const november = buckets(rows)
    const soFar = november.months[10] as number
    const projection = monthProjection(november, undefined, 11, new Date(utc(2026, 10, 29, 23)))
    expect(projection).toBeCloseTo(soFar + 1000 + 8000)
    expect(sundays.length).toBeGreaterThan(0)
  })

  it('averages today’s usual over the weeks whose buckets exist; null with none', () => {
    // 10 January 2026 (a Saturday) at 12:00: the weeks before are 3 January (this year) and three in 2025.
    const now = new Date(utc(2026, 0, 10, 12))
    const rows = [
      { at: utc(2026, 0, 3, 9), amount: 6000 },
      { at: utc(2026, 0, 10, 8), amount: 3000 },
    ]
    expect(todayComparison(buckets(rows), undefined, now)).toMatchObject({
      sum: 3000,
      count: 1,
      usualSum: 6000,
      usualCount: 1,
      change: -0.5,
    })
    expect(todayComparison(buckets(rows), buckets([], 2025), now)).toMatchObject({
      usualSum: 1500,
      usualCount: 0.25,
    })
    expect(todayComparison(buckets([]), undefined, new Date(utc(2026, 0, 2, 12)))).toMatchObject({
      usualSum: null,
      change: null,
    })
    expect(todayComparison(buckets(rows), undefined, new Date(utc(2027, 0, 10)))).toBeNull()
  })

  it('puts a UTC hour in the device’s local weekday and hour, and names the busiest two hours', () => {
    // Saturday 7 November 2026 05:00 UTC is Saturday 14:00 in Korea (+9:00).
    const rows = [
      { at: utc(2026, 10, 7, 5, 10), amount: 4000 },
      { at: utc(2026, 10, 7, 6, 10), amount: 4000 },
      { at: utc(2026, 10, 2, 0, 0), amount: 7000 },
    ]
    const grid = hourGrid(buckets(rows), 11, 540)
    expect(grid[5]?.[14]).toBe(4000)
    expect(grid[5]?.[15]).toBe(4000)
    expect(grid[0]?.[9]).toBe(7000)
    expect(busiestHours(grid)).toEqual({ weekday: 5, fromHour: 14, toHour: 16, sum: 8000 })
    // India (+5:30) rounds to +6.
    expect(hourGrid(buckets(rows), 11, 330)[5]?.[11]).toBe(4000)
  })

  it('labels the grid’s rows Monday first', () => {
    expect(weekdayLabels.join('')).toBe('월화수목금토일')
  })

  it('breaks a tie for the busiest hours by the earliest, and has none for a month without sales', () => {
    const grid = Array.from({ length: 7 }, () => Array(24).fill(0) as number[])
    ;(grid[2] as number[])[20] = 5000
    ;(grid[1] as number[])[3] = 5000
    expect(busiestHours(grid)).toEqual({ weekday: 1, fromHour: 2, toHour: 4, sum: 5000 })
    expect(busiestHours(hourGrid(buckets([]), 3, 540))).toBeNull()
    expect(busiestHours(hourGrid(buckets([{ at: utc(2026, 2, 3), amount: -500 }]), 3, 540))).toBeNull()
  })
})
