// The figures' calendar: UTC hours, days and weeks, and the Gregorian months, by arithmetic. Days,
// months and years of the figures are UTC (docs/product.md decision 4). Pure: it imports nothing and
// reads no clock (an instant is always a parameter), so the server can run it as it is.

export const hourMs = 3_600_000
export const dayMs = 24 * hourMs
export const weekMs = 7 * dayMs

const monthLengths = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
/** firstDayOfMonth[m]: the 0-based day of year of the 1st of month m + 1 in a common year. */
const firstDayOfMonth = monthLengths.map((_, m) => monthLengths.slice(0, m).reduce((a, b) => a + b, 0))
export const isLeapYear = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0

/** Days in a month (1-12) of the Gregorian calendar, by arithmetic: no Date is built. */
export const daysInMonth = (year: number, month: number) =>
  month === 2 && isLeapYear(year) ? 29 : (monthLengths[month - 1] ?? Number.NaN)

export const daysInYear = (year: number) => (isLeapYear(year) ? 366 : 365)

/** The 0-based day of year of a valid date (month 1-12, day 1-31), by a table: no Date is built. */
export const dayOfYear = (year: number, month: number, day: number) =>
  (firstDayOfMonth[month - 1] as number) + (month > 2 && isLeapYear(year) ? 1 : 0) + day - 1

/** 1 January 00:00 UTC of a year (epoch ms). */
export const yearStart = (year: number) => Date.UTC(year, 0, 1)
/** The UTC year an instant (epoch ms) falls in. */
export const yearOf = (ms: number) => new Date(ms).getUTCFullYear()
/** The start (00:00 UTC) of the UTC day an instant falls in. */
export const startOfDay = (ms: number) => Math.floor(ms / dayMs) * dayMs
/** The end of the UTC hour an instant falls in. */
export const endOfHour = (ms: number) => Math.floor(ms / hourMs) * hourMs + hourMs
