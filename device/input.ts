// One line of standard input as a sale: a JSON object `{id?, createdAt?, amount, machine?, method?,
// refundOf?}` or a bare amount (`4000`, `-3000` for a refund). A missing id is a new random UUID (stable
// from then on: it is queued with the sale), a missing time is now. The machine, the payment method and
// the refunded sale's id (docs/product.md §14) are checked as the server checks them, and sent as given.
import { randomUUID } from 'node:crypto'
import { isMachineName, paymentMethods } from '../domain/machines.ts'
import type { Sale } from './batch.ts'

export type Parsed = { sale: Sale } | { error: string } | { empty: true }

/** An instant with an offset (`Z` or `+09:00`), as the server requires. */
const isoWithOffset = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i
/** Visible ASCII, as the server takes it. */
const goodId = /^[\x21-\x7e]{1,100}$/

export function parseSaleLine(line: string, now: () => Date = () => new Date()): Parsed {
  const text = line.trim()
  if (text === '') return { empty: true }
  let raw: {
    id?: unknown
    createdAt?: unknown
    amount?: unknown
    machine?: unknown
    method?: unknown
    refundOf?: unknown
  }
  if (/^-?\d+$/.test(text)) raw = { amount: Number(text) }
  else {
    try {
      const value: unknown = JSON.parse(text)
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        return { error: 'not a JSON object or an amount' }
      raw = value
    } catch {
      return { error: 'not JSON and not an amount' }
    }
  }
  const { id, createdAt, amount } = raw
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount))
    return { error: 'amount must be a whole number of won' }
  if (id !== undefined && (typeof id !== 'string' || !goodId.test(id)))
    return { error: 'id must be 1 to 100 visible ASCII characters' }
  if (
    createdAt !== undefined &&
    (typeof createdAt !== 'string' ||
      !isoWithOffset.test(createdAt) ||
      !Number.isFinite(Date.parse(createdAt)))
  )
    return { error: 'createdAt must be an ISO 8601 instant with an offset' }
  const { machine, method, refundOf } = raw
  if (machine !== undefined && !isMachineName(machine))
    return { error: 'machine must be 1 to 32 visible characters' }
  if (method !== undefined && !(paymentMethods as readonly unknown[]).includes(method))
    return { error: `method must be one of ${paymentMethods.join(', ')}` }
  if (refundOf !== undefined && (typeof refundOf !== 'string' || !goodId.test(refundOf)))
    return { error: 'refundOf must be the id of a sale: 1 to 100 visible ASCII characters' }
  if (refundOf !== undefined && amount >= 0) return { error: 'a refund (refundOf) has a negative amount' }
  return {
    sale: {
      id: id ?? randomUUID(),
      createdAt: (createdAt as string | undefined) ?? now().toISOString(),
      amount,
      ...(machine === undefined ? {} : { machine }),
      ...(method === undefined ? {} : { method: method as string }),
      ...(refundOf === undefined ? {} : { refundOf }),
    },
  }
}
