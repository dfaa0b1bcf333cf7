// The held changes calls of this instance, and what wakes them (docs/architecture.md, "Live changes").
//
// Every commit that changes usages notifies `store:year:revision` on the channel usage_changes, and
// every sign-in that ends notifies its id on sign_ins_ended (triggers of migration 0007), so every
// instance hears every writer, whichever instance or command wrote. PostgreSQL: one dedicated
// connection per instance LISTENs (not one of the pool's, which a query may hold or the pool may end),
// and listens again after any loss. PGlite: its own listen(). A safety poll re-reads, every `pollMs`,
// the revisions of the store-years that have held calls and the state of their sign-ins, and pings the
// listening connection: a lost notification costs at most that long.
import { finished } from 'node:stream'
import type { PGlite } from '@electric-sql/pglite'
import { sql } from 'drizzle-orm'
import pg from 'pg'
import { type Database, queryRows } from '../db/client.ts'

/** Why a wait ended. */
export type Woken = 'change' | 'timeout' | 'ended' | 'closed' | 'aborted'

interface LiveLog {
  warn(details: object, message: string): void
  info(details: object, message: string): void
}

/** The safety poll's period (decision 81). */
export const livePollMs = 5_000

export interface Waiter {
  /** The revision the call has answered up to; a notification above it wakes the call. */
  after: number
  /**
   * Resolves when a change above `after` arrives (at once when one arrived since the last call), the
   * sign-in ends, the server closes, the waiter is released, or `ms` pass.
   */
  next(ms: number): Promise<Woken>
  /** Removes the waiter (always, in a finally): a released waiter holds nothing. */
  release(): void
}

/** A held call that follows several store-years at once (the stores overview): any of them wakes it. */
export interface ManyWaiter {
  /** The revision the call has answered up to for a store-year it follows. */
  setAfter(storeId: number, year: number, rev: number): void
  next(ms: number): Promise<Woken>
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

export interface LiveOptions {
  database: Database
  /** Called when another instance (or this one) ends a sign-in: the token checks forget it at once. */
  onSignInEnded?: (signInId: string) => void
  now?: () => Date
  log?: LiveLog
  pollMs?: number
}

/**
 * The answers one sign-in may hold open at once on one instance (decisions 150 and 159): held calls and
 * streams, and large changes answers (`countedAnswerBytes`), each until its connection has taken its last
 * byte or is gone.
 */
export const heldPerSignIn = 8

/**
 * A changes answer without `wait` larger than this (the year as puts, `after=0`, of a year with records)
 * counts against the bound too while its connection takes it (decision 159).
 */
export const countedAnswerBytes = 64 * 1024

/** An answer being sent: `finished` tells when its last byte was taken or its connection went. */
type OpenAnswer = Parameters<typeof finished>[0]

export function createLive({
  database,
  onSignInEnded,
  now = () => new Date(),
  log,
  pollMs = livePollMs,
}: LiveOptions) {
  const byKey = new Map<string, Set<Entry>>()
  const bySignIn = new Map<string, Set<Entry>>()
  /** The answers each sign-in holds open (`occupy`): counted apart from the waiters, which end sooner. */
  const open = new Map<string, number>()
  let closed = false
  const stats = { held: 0, notifications: 0, polls: 0, listens: 0 }

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
      // A timeout is not final either: a stream waits again after its heartbeat (server/usage/stream.ts).
      if (woken !== 'change' && woken !== 'timeout') entry.pending = woken
    } else entry.pending = woken
  }

  function revisionHeard(storeId: number, year: number, rev: number) {
    const set = byKey.get(`${storeId}:${year}`)
    if (!set) return
    for (const entry of set) if (rev > (entry.afters.get(`${storeId}:${year}`) ?? -1)) wake(entry, 'change')
  }

  function signInEnded(signInId: string) {
    onSignInEnded?.(signInId)
    const set = bySignIn.get(signInId)
    if (!set) return
    for (const entry of set) wake(entry, 'ended')
  }

  function heardChange(payload: string) {
    stats.notifications++
    const [store, year, rev] = payload.split(':').map(Number)
    if (store !== undefined && year !== undefined && rev !== undefined && Number.isFinite(rev))
      revisionHeard(store, year, rev)
  }

  /** Holds a call that any change of the given store-years wakes (each above its own revision). */
  function holdAll(keys: { storeId: number; year: number }[], signInId: string): ManyWaiter {
    const entry: Entry = {
      afters: new Map(keys.map(({ storeId, year }) => [`${storeId}:${year}`, -1])),
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
      setAfter(storeId: number, year: number, rev: number) {
        const key = `${storeId}:${year}`
        if (entry.afters.has(key)) entry.afters.set(key, rev)
      },
      next(ms: number) {
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
  }

  /** Holds a call that a change of one store-year above `after` wakes (the changes call). */
  function hold(storeId: number, year: number, signInId: string): Waiter {
    const many = holdAll([{ storeId, year }], signInId)
    let after = -1
    return {
      get after() {
        return after
      },
      set after(value: number) {
        after = value
        many.setAfter(storeId, year, value)
      },
      next: many.next,
      release: many.release,
    }
  }

  // The listening connection (PostgreSQL) or subscription (PGlite).
  let listener: pg.Client | null = null
  let unlisten: (() => Promise<void>) | null = null
  let reconnectTimer: NodeJS.Timeout | null = null
  let reconnectDelay = 100
  const channels = { usage_changes: heardChange, sign_ins_ended: signInEnded } as const

  async function listenEmbedded(pglite: PGlite) {
    const stops = await Promise.all(
      Object.entries(channels).map(([channel, handler]) => pglite.listen(channel, handler)),
    )
    unlisten = async () => {
      for (const stop of stops) await stop()
    }
    stats.listens++
  }

  /** False once listening was stopped (closing, or a test standing for a listener gone deaf). */
  let listening = true

  function scheduleReconnect(connectionString: string) {
    if (closed || !listening || reconnectTimer) return
    reconnectTimer = setTimeout(() => {
      reconnectTimer = null
      void listenPostgres(connectionString)
    }, reconnectDelay)
    reconnectDelay = Math.min(reconnectDelay * 2, pollMs)
  }

  async function listenPostgres(connectionString: string) {
    if (closed || !listening) return
    const client = new pg.Client({ connectionString })
    let lost = false
    const onLoss = (reason: string) => {
      if (lost) return
      lost = true
      if (listener === client) listener = null
      client.removeAllListeners('notification')
      client.end().catch(() => {})
      if (!closed && listening) {
        log?.warn({ reason }, 'the live changes connection was lost; listening again')
        scheduleReconnect(connectionString)
      }
    }
    client.on('error', (error) => onLoss(error.message))
    client.on('end', () => onLoss('ended'))
    client.on('notification', (message) => {
      const handler = channels[message.channel as keyof typeof channels]
      if (handler && message.payload !== undefined) handler(message.payload)
    })
    try {
      await client.connect()
      await client.query('LISTEN usage_changes')
      await client.query('LISTEN sign_ins_ended')
    } catch (error) {
      onLoss(error instanceof Error ? error.message : String(error))
      return
    }
    if (closed || !listening) {
      await client.end().catch(() => {})
      return
    }
    listener = client
    reconnectDelay = 100
    stats.listens++
    // What was committed while nobody listened is found by reading it.
    if (stats.listens > 1) void poll()
  }

  /** The listening connection's backend pid (tests end it to prove the listener comes back). */
  async function listenerPid(): Promise<number | null> {
    if (!listener) return null
    const { rows } = await listener.query<{ pid: number }>('select pg_backend_pid() as pid')
    return rows[0]?.pid ?? null
  }

  async function pingListener() {
    const client = listener
    if (!client) return
    let timer: NodeJS.Timeout | undefined
    try {
      await Promise.race([
        client.query('select 1'),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('no answer in 2 s')), 2_000)
        }),
      ])
    } catch (error) {
      // A connection that stopped answering may also have stopped delivering: replace it.
      client.emit('error', error instanceof Error ? error : new Error(String(error)))
    } finally {
      clearTimeout(timer)
    }
  }

  async function stopListening() {
    listening = false
    if (reconnectTimer) clearTimeout(reconnectTimer)
    reconnectTimer = null
    const client = listener
    listener = null
    if (client) await client.end().catch(() => {})
    const stop = unlisten
    unlisten = null
    if (stop) await stop().catch(() => {})
  }

  let polling: Promise<void> | null = null
  /** The safety poll: the revisions of the held store-years and the state of the held sign-ins. */
  function poll(): Promise<void> {
    if (polling) return polling
    polling = (async () => {
      try {
        if (database.kind === 'postgres') await pingListener()
        if (byKey.size === 0 || closed) return
        stats.polls++
        const keys = [...byKey.keys()].map((key) => key.split(':').map(Number))
        const revisions = await queryRows<{ store_id: number; year: number; version: string | number }>(
          database.db,
          sql`select u.store_id, u.year, u.version from usage_years u
              join json_to_recordset(${JSON.stringify(keys.map(([s, y]) => ({ s, y })))}::json) as k(s integer, y integer)
                on u.store_id = k.s and u.year = k.y`,
        )
        for (const row of revisions) revisionHeard(row.store_id, row.year, Number(row.version))
        const signInIds = [...bySignIn.keys()]
        const live = await queryRows<{ id: string }>(
          database.db,
          sql`select id from sign_ins
              where id in (select jsonb_array_elements_text(${JSON.stringify(signInIds)}::jsonb))
                and revoked_at is null and expires_at > ${now().toISOString()}`,
        )
        const liveIds = new Set(live.map((row) => row.id))
        for (const id of signInIds) if (!liveIds.has(id)) signInEnded(id)
      } catch (error) {
        if (!closed) log?.warn({ err: error }, 'the live changes poll failed')
      } finally {
        polling = null
      }
    })()
    return polling
  }

  const poller = setInterval(() => void poll(), pollMs)
  poller.unref()

  return {
    stats,
    hold,
    holdAll,
    poll,
    listenerPid,
    /** The calls held now. */
    get held() {
      return stats.held
    },
    /**
     * Whether the sign-in holds as many calls (or streams) on this instance as it may: a browser's app
     * holds one for the sales screen's year and one for the overview; more are a client gone wrong, or
     * one trying to make every sale cost this server a read per call.
     */
    isFull(signInId: string) {
      return (open.get(signInId) ?? 0) >= heldPerSignIn
    },

    /**
     * Counts `answer` against its sign-in's bound until its last byte was taken or its connection is
     * gone, not only while it waits: a stream ended (token expired, too far behind) or a whole year
     * still unread by a client that does not read keeps its bytes queued here. False, counting
     * nothing, when the sign-in already holds as many as it may.
     */
    occupy(signInId: string, answer: OpenAnswer) {
      const count = open.get(signInId) ?? 0
      if (count >= heldPerSignIn) return false
      open.set(signInId, count + 1)
      let counted = true
      finished(answer, () => {
        if (!counted) return
        counted = false
        const left = (open.get(signInId) ?? 1) - 1
        if (left > 0) open.set(signInId, left)
        else open.delete(signInId)
      })
      return true
    },

    /** The answers a sign-in holds open on this instance (`occupy`). */
    occupied(signInId: string) {
      return open.get(signInId) ?? 0
    },

    /** Starts listening: PGlite's listen(), or the dedicated PostgreSQL connection. */
    async start(connectionString?: string) {
      if (database.pglite) await listenEmbedded(database.pglite)
      else if (connectionString) await listenPostgres(connectionString)
    },

    /** Answers every held call (closing: it answers what it last read) and refuses new waits. */
    endHeld() {
      closed = true
      for (const set of byKey.values()) for (const entry of set) wake(entry, 'closed')
    },

    /** Stops listening for good; only the safety poll wakes held calls after this. */
    stopListening,

    /** Stops the poll and the listening; before the database closes. */
    async close() {
      closed = true
      clearInterval(poller)
      await stopListening()
      await polling
    },
  }
}

export type Live = ReturnType<typeof createLive>
