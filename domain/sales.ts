// A batch's sales checked one by one (docs/product.md §11): each bad sale is rejected by itself with a
// Korean message, and the good ones go on to be stored. Pure: no database, no library, the clock handed
// in. The batch's own limits are devices.ts's.

export const maxAmount = 10_000_000
/** How far ahead of the server's clock a sale may be dated (a device's clock runs a little fast). */
export const futureToleranceMs = 5 * 60 * 1000
const maxIdLength = 100

export const saleMessages = {
  notObject: '매출은 {id, createdAt, amount} 형태의 객체여야 합니다.',
  id: 'id는 보이는 문자 1~100자의 문자열이나 0 이상의 정수여야 합니다.',
  amountNotInteger: '금액(amount)은 정수(원)여야 합니다.',
  amountRange: `금액(amount)은 -${maxAmount.toLocaleString('ko-KR')}원부터 ${maxAmount.toLocaleString('ko-KR')}원까지입니다.`,
  createdAtUnparseable: '시각(createdAt)을 읽을 수 없습니다 (예: 2026-03-01T09:15:00+09:00).',
  createdAtNoOffset: '시각(createdAt)에 오프셋이 없습니다: Z나 +09:00처럼 붙여 주세요.',
  createdAtRange: '시각(createdAt)은 2000년부터 2100년 사이여야 합니다.',
  createdAtFuture: '시각(createdAt)이 서버 시각보다 5분 넘게 앞섭니다. 기기의 시계를 확인해 주세요.',
  otherSale: '이 기기가 같은 id로 다른 매출(시각이나 금액이 다른)을 이미 보냈습니다.',
} as const

export interface GoodSale {
  /** The id as stored: a whole-number id as its decimal text. */
  id: string
  /** ISO 8601 in UTC, to the millisecond (what the database keeps). */
  createdAt: string
  amount: number
  /** The id as the device sent it, for its answer. */
  sentId: string | number
}

export interface Rejected {
  id: string | number | null
  message: string
}

export interface CheckedSales {
  good: GoodSale[]
  rejected: Rejected[]
  /** Sales repeated within the batch (same id, time and amount as an earlier one): stored once. */
  repeated: number
}

const isoInstant = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})?$/
const offset = /([Zz]|[+-]\d{2}:?\d{2})$/

/** The parts of an instant as `instantAt` reads it: a capital T, then a capital Z or a numeric offset. */
const instantParts =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}(?:\.\d*)?))?(?:Z|([+-])(\d{2})(?::?(\d{2}))?)$/
const daysInMonths = [31, 0, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
const isLeapYear = (year: number) => year % 400 === 0 || (year % 4 === 0 && year % 100 !== 0)

/**
 * The instant (epoch ms) an ISO 8601 date and time with an offset names, NaN when it names none: read
 * as date-fns' parseISO reads it (tests/server/devices/sale-instant.test.ts compares the two on any
 * text), so that a lower-case `t` or `z` is not read, a month's day must exist, 24:00 is the next
 * day's start, and a fraction of a millisecond is cut off.
 */
function instantAt(text: string): number {
  const parts = instantParts.exec(text)
  if (!parts) return Number.NaN
  const [, year, month, day, hour, minute, second, sign, offsetHours, offsetMinutes] = parts
  const y = Number(year)
  const m = Number(month) - 1
  const d = Number(day)
  if (!(m >= 0 && m <= 11 && d >= 1 && d <= (daysInMonths[m] || (isLeapYear(y) ? 29 : 28)))) return Number.NaN
  const h = Number(hour)
  const min = Number(minute)
  const s = second === undefined ? 0 : Number.parseFloat(second) || 0
  if (h === 24 ? min !== 0 || s !== 0 : !(s >= 0 && s < 60 && min >= 0 && min < 60 && h >= 0 && h < 25))
    return Number.NaN
  const offsetMin = offsetMinutes === undefined ? 0 : Number(offsetMinutes)
  if (!(offsetMin >= 0 && offsetMin <= 59)) return Number.NaN
  const offset =
    sign === undefined ? 0 : (sign === '+' ? -1 : 1) * (Number(offsetHours) * 3_600_000 + offsetMin * 60_000)
  const date = new Date(0)
  date.setUTCFullYear(y, m, d)
  return new Date(date.getTime() + (h * 3_600_000 + min * 60_000 + s * 1000) + offset).getTime()
}

/** An instant with an offset, or the message saying why not. */
export function parseInstant(text: unknown, now: Date): Date | string {
  if (typeof text !== 'string' || !isoInstant.test(text)) return saleMessages.createdAtUnparseable
  if (!offset.test(text)) return saleMessages.createdAtNoOffset
  const date = new Date(instantAt(text.replace(' ', 'T')))
  if (Number.isNaN(date.getTime())) return saleMessages.createdAtUnparseable
  const year = date.getUTCFullYear()
  if (year < 2000 || year > 2100) return saleMessages.createdAtRange
  if (date.getTime() > now.getTime() + futureToleranceMs) return saleMessages.createdAtFuture
  return date
}

function saleId(id: unknown): string | null {
  if (typeof id === 'number') return Number.isSafeInteger(id) && id >= 0 ? String(id) : null
  if (typeof id !== 'string' || id.length === 0 || id.length > maxIdLength) return null
  // Visible characters and inner spaces; no control character, no unpaired surrogate (\p{Cs} with the
  // u flag matches only those), which the database's JSON could not read.
  return /^[\x21-\x7e\u00a0-\uffff][\x20-\x7e\u00a0-\uffff]*$/.test(id) &&
    !/\p{Cs}/u.test(id) &&
    id.trim() === id
    ? id
    : null
}

export function checkSales(sales: unknown[], now: Date): CheckedSales {
  const good: GoodSale[] = []
  const rejected: Rejected[] = []
  const seen = new Map<string, GoodSale>()
  let repeated = 0
  for (const sale of sales) {
    if (!sale || typeof sale !== 'object' || Array.isArray(sale)) {
      rejected.push({ id: null, message: saleMessages.notObject })
      continue
    }
    const { id: rawId, createdAt: rawCreatedAt, amount } = sale as Record<string, unknown>
    const sentId =
      typeof rawId === 'string' || (typeof rawId === 'number' && Number.isFinite(rawId)) ? rawId : null
    const reject = (message: string) => rejected.push({ id: sentId, message })
    const id = saleId(rawId)
    if (id === null) {
      reject(saleMessages.id)
      continue
    }
    if (typeof amount !== 'number' || !Number.isInteger(amount)) {
      reject(saleMessages.amountNotInteger)
      continue
    }
    if (Math.abs(amount) > maxAmount) {
      reject(saleMessages.amountRange)
      continue
    }
    const createdAt = parseInstant(rawCreatedAt, now)
    if (typeof createdAt === 'string') {
      reject(createdAt)
      continue
    }
    const checked = { id, createdAt: createdAt.toISOString(), amount, sentId: rawId as string | number }
    const earlier = seen.get(id)
    if (earlier) {
      if (earlier.createdAt === checked.createdAt && earlier.amount === amount) repeated++
      else reject(saleMessages.otherSale)
      continue
    }
    seen.set(id, checked)
    good.push(checked)
  }
  return { good, rejected, repeated }
}
