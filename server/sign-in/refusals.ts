// What this instance last learned from the database about a sign-in limit's refusal: "the key
// `code:ip:198.51.100.9` refuses until 10:41:07". A client that keeps knocking after a 429 is then
// refused from memory, without a transaction (a refused code request cost 13 ms of the one thread in
// round trips; docs/product.md decision 37).
//
// It is only a cache in front of the database, which stays the truth shared by every instance: an
// entry is written only from what the database answered, and it refuses only until the moment the
// database itself named. That is sound because every refusal it keeps only grows while it lasts: a
// window is full until its oldest event ages out (others only add events; nothing else removes them),
// and a lock lasts until its `lockedUntil` (only a success of that same client, which the lock
// refuses, resets it). Another instance that has not seen the refusal asks the database and is
// refused there. A clock set back makes an entry stale rather than trusted for longer.
import { LRUCache } from 'lru-cache'
import type { Refusal } from '../rate-limit.ts'

/** Keys remembered at most; one forgotten is simply read from the database again. */
const refusalsKept = 10_000

export function createRefusals(now: () => Date) {
  const entries = new LRUCache<string, Refusal & { noted: number }>({ max: refusalsKept })
  return {
    /** The database refuses `key` until `until` (ms; 0: it does not). */
    note(key: string, until: number, message: string) {
      const at = now().getTime()
      if (until <= at) return
      const held = entries.get(key)
      if (!held || held.until < until) entries.set(key, { until, message, noted: at })
    },

    /** The refusal remembered for the key that still holds now, or undefined. */
    of(key: string): Refusal | undefined {
      const entry = entries.get(key)
      if (!entry) return undefined
      const at = now().getTime()
      if (at < entry.noted || at >= entry.until) {
        entries.delete(key)
        return undefined
      }
      return { until: entry.until, message: entry.message }
    },

    /** Forgets everything (tests that empty the database between cases). */
    clear() {
      entries.clear()
    },
  }
}

export type Refusals = ReturnType<typeof createRefusals>
