// The one backoff of the product: how long to wait before attempt `attempt + 1` after `attempt` failures
// in a row. Doubling from `firstMs`, at most `maxMs`; with `jitter`, half of it fixed and half random, so
// clients that failed together do not come back together; never shorter than what the other side asked
// for (Retry-After). Each caller keeps its own numbers (tests/domain/backoff.test.ts).

export interface Backoff {
  /** The wait after the first failure. */
  firstMs: number
  /** The longest wait (none: doubling without end). */
  maxMs?: number
  /** Half the wait fixed, half random. */
  jitter?: boolean
}

export function backoff(
  attempt: number,
  { firstMs, maxMs = Number.POSITIVE_INFINITY, jitter = false }: Backoff,
  retryAfterMs = 0,
  random = Math.random,
): number {
  const cap = Math.min(maxMs, firstMs * 2 ** Math.min(attempt, 30))
  const wait = jitter ? cap / 2 + random() * (cap / 2) : cap
  return Math.max(wait, retryAfterMs)
}

/**
 * A Retry-After header in milliseconds: seconds, or an HTTP date (from `nowMs`); undefined when absent
 * or unreadable.
 */
export function retryAfterMs(header: string | null | undefined, nowMs = Date.now()): number | undefined {
  if (header == null) return undefined
  const text = header.trim()
  if (/^\d+$/.test(text)) return Number(text) * 1000
  const at = Date.parse(text)
  return Number.isNaN(at) ? undefined : Math.max(at - nowMs, 0)
}
