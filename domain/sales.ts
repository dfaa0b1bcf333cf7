// A batch's sales checked one by one (docs/product.md §11): each bad sale is rejected by itself with a
// Korean message, and the good ones go on to be stored. Pure: no database, no library, the clock handed
// in. The batch's own limits are devices.ts's; a sale's machine, payment method and refunded sale are
// §14's (whether a refund's original exists is the database's: server/devices/ingest.ts).
import { isMachineName, type PaymentMethod, paymentMethods } from './machines.ts'

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
  otherSale:
    '이 기기가 같은 id로 다른 매출(시각, 금액, 기계, 결제 수단이나 환불 대상이 다른)을 이미 보냈습니다.',
  machine: '기계(machine)는 보이는 문자 1~32자의 문자열이어야 합니다 (예: W3, 건조기2).',
  method: '결제 수단(method)은 card, cash, coin, mobile, point, other 중 하나여야 합니다.',
  refundOf: '환불 대상(refundOf)은 id와 같은 규칙의 문자열이나 0 이상의 정수여야 합니다.',
  refundOfNotRefund: '환불 대상(refundOf)은 금액(amount)이 음수인 환불에만 붙일 수 있습니다.',
  refundUnknown:
    '환불 대상(refundOf)인 매출이 없습니다: 이 기기가 먼저 보낸 매출(같은 묶음이면 앞에 있는 매출)이어야 합니다.',
  refundOfRefund: '환불 대상(refundOf)이 환불입니다: 환불은 매출에만 할 수 있습니다.',
  refundTooLarge: '환불 금액이 남은 매출 금액보다 큽니다: 한 매출의 환불은 모두 합쳐 그 매출 금액까지입니다.',
} as const

export interface GoodSale {
  /** The id as stored: a whole-number id as its decimal text. */
  id: string
  /** ISO 8601 in UTC, to the millisecond (what the database keeps). */
  createdAt: string
  amount: number
  /** The machine it was made on (domain/machines.ts), null when not said. */
  machine: string | null
  method: PaymentMethod | null
  /** For a refund, the stored id (as `id`) of the sale it refunds; null when not said. */
  refundOf: string | null
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

type Fields = Pick<GoodSale, 'machine' | 'method' | 'refundOf'>

/** A sale's optional machine, method and refunded sale (docs/product.md §14), or why not. */
function checkFields(sale: Record<string, unknown>, amount: number): Fields | string {
  const { machine, method, refundOf } = sale
  if (machine !== undefined && !isMachineName(machine)) return saleMessages.machine
  if (method !== undefined && !(paymentMethods as readonly unknown[]).includes(method))
    return saleMessages.method
  const original = refundOf === undefined ? null : saleId(refundOf)
  if (refundOf !== undefined && original === null) return saleMessages.refundOf
  if (original !== null && amount >= 0) return saleMessages.refundOfNotRefund
  return {
    machine: (machine as string | undefined) ?? null,
    method: (method as PaymentMethod | undefined) ?? null,
    refundOf: original,
  }
}

/** Whether two sales under one id are the same sale: every field the device sent alike. */
export const sameSale = (a: Omit<GoodSale, 'sentId'>, b: Omit<GoodSale, 'sentId'>) =>
  a.createdAt === b.createdAt &&
  a.amount === b.amount &&
  a.machine === b.machine &&
  a.method === b.method &&
  a.refundOf === b.refundOf

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
    const fields = checkFields(sale as Record<string, unknown>, amount)
    if (typeof fields === 'string') {
      reject(fields)
      continue
    }
    const checked = {
      id,
      createdAt: createdAt.toISOString(),
      amount,
      ...fields,
      sentId: rawId as string | number,
    }
    const earlier = seen.get(id)
    if (earlier) {
      if (sameSale(earlier, checked)) repeated++
      else reject(saleMessages.otherSale)
      continue
    }
    seen.set(id, checked)
    good.push(checked)
  }
  return { good, rejected, repeated }
}
