// The held calls of this instance, each waiting for a change of the store-years it follows (above the
// revision it answered up to), the end of its sign-in, the server's close, or its own timeout. What
// wakes them (the listener's notifications, the safety poll) calls `revisionHeard` and `signInEnded`.

/** Why a wait ended. */
export type Woken = 'change' | 'timeout' | 'ended' | 'closed' | 'aborted'

/** A store-year a held call follows. */
export interface StoreYear {
  storeId: number
  year: number
}

/** A held call, following one store-year or several at once (the stores overview): any of them wakes it. */
export interface Waiter {
  /** The revision the call has answered up to for a store-year it follows; a change above it wakes the call. */
  setAfter(storeId: number, year: number, revision: number): void
  /**
   * Resolves when a change above the answered revision arrives (at once when one arrived since the
   * last call), the sign-in ends, the server closes, the waiter is released, or `ms` pass.
   */
  next(ms: number): Promise<Woken>
  /** Removes the waiter (always, in a finally): a released waiter holds nothing. */
  release(): void
}

interface Entry {
  /** The store-years followed (`store:year`), each with the revision answered up to. */
  afters: Map<string, number>
  signInId: string
  /** A wake that came while nobody was waiting (during a read): the next `next` returns at once. */
  pending: Woken | null
  resolve: ((woken: Woken) => void) | null
  timer: NodeJS.Timeout | null
}

const keyOf = (storeId: number, year: number) => `${storeId}:${year}`

function add<K>(map: Map<K, Set<Entry>>, key: K, entry: Entry) {
  const set = map.get(key)
  if (set) set.add(entry)
  else map.set(key, new Set([entry]))
}

function remove<K>(map: Map<K, Set<Entry>>, key: K, entry: Entry) {
  const set = map.get(key)
  if (!set) return
  set.delete(entry)
  if (set.size === 0) map.delete(key)
}

function wake(entry: Entry, woken: Woken) {
  // Ended, closed and aborted are final; a change never replaces them.
  if (entry.pending && entry.pending !== 'change') return
  if (entry.resolve) {
    const resolve = entry.resolve
    entry.resolve = null
    if (entry.timer) clearTimeout(entry.timer)
    entry.timer = null
    resolve(woken)
    // A timeout is not final either: a stream waits again after its heartbeat (server/live/stream.ts).
    if (woken !== 'change' && woken !== 'timeout') entry.pending = woken
  } else entry.pending = woken
}

/** The waiters of one instance, by store-year and by sign-in. */
export function createWaiters(stats: { held: number }) {
  const byKey = new Map<string, Set<Entry>>()
  const bySignIn = new Map<string, Set<Entry>>()
  let closed = false

  return {
    /** Holds a call that any change of the given store-years wakes (each above its own revision). */
    hold(keys: StoreYear[], signInId: string): Waiter {
      const entry: Entry = {
        afters: new Map(keys.map(({ storeId, year }) => [keyOf(storeId, year), -1])),
        signInId,
        pending: closed ? 'closed' : null,
        resolve: null,
        timer: null,
      }
      for (const key of entry.afters.keys()) add(byKey, key, entry)
      add(bySignIn, signInId, entry)
      stats.held++
      let released = false
      return {
        setAfter(storeId, year, revision) {
          const key = keyOf(storeId, year)
          if (entry.afters.has(key)) entry.afters.set(key, revision)
        },
        next(ms) {
          if (entry.pending) {
            const woken = entry.pending
            if (woken === 'change') entry.pending = null
            return Promise.resolve(woken)
          }
          return new Promise<Woken>((resolve) => {
            entry.resolve = resolve
            entry.timer = setTimeout(() => wake(entry, 'timeout'), Math.max(0, ms))
          })
        },
        release() {
          if (released) return
          released = true
          wake(entry, 'aborted')
          if (entry.timer) clearTimeout(entry.timer)
          entry.timer = null
          for (const key of entry.afters.keys()) remove(byKey, key, entry)
          remove(bySignIn, entry.signInId, entry)
          stats.held--
        },
      }
    },

    /** A store-year's revision was heard (a notification or the poll): wakes the calls behind it. */
    revisionHeard(storeId: number, year: number, revision: number) {
      const key = keyOf(storeId, year)
      const set = byKey.get(key)
      if (!set) return
      for (const entry of set) if (revision > (entry.afters.get(key) ?? -1)) wake(entry, 'change')
    },

    /** A store's team changed: every call following any year of it reads again (`change`). */
    storeChanged(storeId: number) {
      const prefix = `${storeId}:`
      for (const [key, set] of byKey)
        if (key.startsWith(prefix)) for (const entry of set) wake(entry, 'change')
    },

    /** A sign-in ended: its held calls end (with 401). */
    signInEnded(signInId: string) {
      const set = bySignIn.get(signInId)
      if (!set) return
      for (const entry of set) wake(entry, 'ended')
    },

    /** The store-years and the sign-ins held now (what the safety poll reads). */
    held(): { keys: StoreYear[]; signInIds: string[] } {
      const keys = [...byKey.keys()].map((key) => {
        const [storeId, year] = key.split(':').map(Number) as [number, number]
        return { storeId, year }
      })
      return { keys, signInIds: [...bySignIn.keys()] }
    },

    /** Refuses new waits (a call held from now on is answered at once as closing). */
    refuse() {
      closed = true
    },

    /** Answers every held call (closing: it answers what it last read) and refuses new waits. */
    endHeld() {
      closed = true
      for (const set of byKey.values()) for (const entry of set) wake(entry, 'closed')
    },
  }
}

export type Waiters = ReturnType<typeof createWaiters>
