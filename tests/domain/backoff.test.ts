// The one backoff (domain/backoff.ts) gives, with each caller's numbers, what each caller's own formula
// gave before it had one: the formulas below are the old ones, word for word.
import { describe, expect, it } from 'vitest'
import { backoff, retryAfterMs } from '../../domain/backoff.ts'

const attempts = Array.from({ length: 40 }, (_, attempt) => attempt)

describe('the one backoff', () => {
  it("gives the query cache's retry delay: doubling from 1 s, at most 30 s", () => {
    const old = (failures: number) => Math.min(1000 * 2 ** failures, 30_000)
    for (const n of attempts) expect(backoff(n, { firstMs: 1000, maxMs: 30_000 })).toBe(old(n))
  })

  it("gives the live follower's wait after a failed held call: doubling from 2 s, at most 5 minutes", () => {
    const old = (failures: number) => Math.min(2000 * 2 ** failures, 300_000)
    for (const n of attempts) expect(backoff(n, { firstMs: 2000, maxMs: 300_000 })).toBe(old(n))
  })

  it("gives the device's jittered wait, never shorter than Retry-After", () => {
    const old = (
      attempt: number,
      baseMs: number,
      maxMs: number,
      retryAfter: number | undefined,
      r: number,
    ) => {
      const cap = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30))
      return Math.max(cap / 2 + r * (cap / 2), retryAfter ?? 0)
    }
    for (const n of [...attempts, 100])
      for (const r of [0, 0.25, 0.5, 1])
        for (const retryAfter of [undefined, 0, 7000, 120_000])
          for (const [baseMs, maxMs] of [
            [1000, 60_000],
            [500, 60_000],
          ] as const)
            expect(backoff(n, { firstMs: baseMs, maxMs, jitter: true }, retryAfter, () => r)).toBe(
              old(n, baseMs, maxMs, retryAfter, r),
            )
  })

  it("gives the live listener's reconnect delay: doubling from 100 ms, at most the poll's period", () => {
    // Every period in use (5 s, and 300 ms and 60 s in tests); the old loop's first wait was 100 ms
    // even under a period shorter than that, which no configuration sets.
    for (const pollMs of [5_000, 300, 60_000, 100]) {
      // The old loop: `delay` used, then `delay = Math.min(delay * 2, pollMs)`, back to 100 on success.
      let delay = 100
      for (const n of attempts) {
        expect(backoff(n, { firstMs: 100, maxMs: pollMs })).toBe(delay)
        delay = Math.min(delay * 2, pollMs)
      }
    }
  })

  it("gives the sign-in code's resend delay: doubling from the first, without end", () => {
    for (const firstDelayMs of [1000, 50, 2500])
      for (let attempt = 1; attempt <= 31; attempt++)
        expect(backoff(attempt - 1, { firstMs: firstDelayMs })).toBe(firstDelayMs * 2 ** (attempt - 1))
  })

  it("gives the push delivery's wait without Retry-After: doubling from 30 s, at most an hour", () => {
    const old = (failuresBefore: number) => Math.min(30_000 * 2 ** Math.min(failuresBefore, 20), 60 * 60_000)
    for (const n of [...attempts, 1000])
      expect(backoff(n, { firstMs: 30_000, maxMs: 60 * 60_000 })).toBe(old(n))
  })

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(retryAfterMs('3')).toBe(3000)
    expect(retryAfterMs(' 7 ')).toBe(7000)
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4000)).toBe(6000)
    expect(retryAfterMs(new Date(1_000).toUTCString(), 4000)).toBe(0)
    expect(retryAfterMs(null)).toBeUndefined()
    expect(retryAfterMs(undefined)).toBeUndefined()
    expect(retryAfterMs('soon')).toBeUndefined()
  })
})
