// What the device sends: a sale, a batch of them with its Idempotency-Key, the body of one attempt, and
// how many sales and bytes a batch may hold.
import { randomUUID } from 'node:crypto'
import { maxSalesBytes, maxSalesPerBatch } from '../domain/devices.ts'

export interface Sale {
  id: string
  /** An ISO 8601 instant with an offset. */
  createdAt: string
  /** Whole won; negative for a refund. */
  amount: number
  /** The machine it was made on (docs/product.md §14), when the input said. */
  machine?: string
  /** How it was paid (`card`, `cash`, `coin`, `mobile`, `point`, `other`), when the input said. */
  method?: string
  /** For a refund, the id of the sale it refunds, when the input said. */
  refundOf?: string
}

export interface Batch {
  key: string
  /** The batch's sales as JSON text, byte for byte what every attempt sends. */
  sales: string
  ids: string[]
}

/** A sale the server refused, with why. */
export interface Rejected {
  id: string
  message: string
}

/** The body of one attempt: the batch's sales, and the device's clock as it sends. */
export const batchBody = (batch: Batch, sentAt: string) =>
  `{"sales":${batch.sales},"sentAt":${JSON.stringify(sentAt)}}`

/**
 * A new batch of the oldest `sales` that fit (at most `limits.sales`, and `limits.bytes` with a
 * `sentAt` of the usual 24 characters), with a new Idempotency-Key.
 */
export function chooseBatch(
  sales: Iterable<Sale>,
  limits = { sales: maxSalesPerBatch, bytes: maxSalesBytes },
): Batch {
  // The body is `{"sales":[...],"sentAt":"2026-11-25T09:00:00.000Z"}`; count the bytes as they will be sent.
  let bytes = Buffer.byteLength(batchBody({ key: '', sales: '[]', ids: [] }, new Date(0).toISOString()))
  const chosen: Sale[] = []
  for (const sale of sales) {
    const more = Buffer.byteLength(JSON.stringify(sale)) + (chosen.length > 0 ? 1 : 0)
    if (chosen.length >= limits.sales || bytes + more > limits.bytes) break
    chosen.push(sale)
    bytes += more
  }
  if (chosen.length === 0) throw new Error('a single sale is larger than a batch may be')
  return { key: randomUUID(), sales: JSON.stringify(chosen), ids: chosen.map((sale) => sale.id) }
}
