// What hears every writer: every commit that changes usages notifies `store:year:revision` on the
// channel usage_changes, and every sign-in that ends notifies its id on sign_ins_ended (triggers of
// migration 0007), and every change of a store's team notifies `store:user` on memberships_changed
// (server/team/members.ts), so every instance hears every writer, whichever instance or command wrote.
// PostgreSQL: one dedicated connection per instance LISTENs (not one of the pool's, which a query may
// hold or the pool may end), and listens again after any loss, its waits growing by the one backoff.
// PGlite: its own listen().
import type { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { backoff } from '../../domain/backoff.ts'

export interface LiveLog {
  warn(details: object, message: string): void
  info(details: object, message: string): void
}

export interface ListenerOptions {
  /** Each channel listened to, and what to do with a notification's payload. */
  channels: {
    usage_changes: (payload: string) => void
    sign_ins_ended: (payload: string) => void
    memberships_changed: (payload: string) => void
  }
  /** The longest wait before listening again (the safety poll's period). */
  maxReconnectMs: number
  /** Called when listening starts again after a loss: what was committed meanwhile is found by reading it. */
  onRelisten: () => void
  /** Whether the instance is closing: a lost connection is then not replaced. */
  closed: () => boolean
  stats: { listens: number }
  log?: LiveLog | undefined
}

export function createListener({
  channels,
  maxReconnectMs,
  onRelisten,
  closed,
  stats,
  log,
}: ListenerOptions) {
  let listener: pg.Client | null = null
  let unlisten: (() => Promise<void>) | null = null
  let reconnectTimer: NodeJS.Timeout | null = null
  let failures = 0
  /** False once listening was stopped (closing, or a test standing for a listener gone deaf). */
  let listening = true

  async function listenEmbedded(pglite: PGlite) {
    const stops = await Promise.all(
      Object.entries(channels).map(([channel, handler]) => pglite.listen(channel, handler)),
    )
    unlisten = async () => {
      for (const stop of stops) await stop()
    }
    stats.listens++
  }

  function scheduleReconnect(connectionString: string) {
    if (closed() || !listening || reconnectTimer) return
    reconnectTimer = setTimeout(
      () => {
        reconnectTimer = null
        void listenPostgres(connectionString)
      },
      backoff(failures++, { firstMs: 100, maxMs: maxReconnectMs }),
    )
  }

  async function listenPostgres(connectionString: string) {
    if (closed() || !listening) return
    const client = new pg.Client({ connectionString })
    let lost = false
    const onLoss = (reason: string) => {
      if (lost) return
      lost = true
      if (listener === client) listener = null
      client.removeAllListeners('notification')
      client.end().catch(() => {})
      if (!closed() && listening) {
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
      await client.query('LISTEN memberships_changed')
    } catch (error) {
      onLoss(error instanceof Error ? error.message : String(error))
      return
    }
    if (closed() || !listening) {
      await client.end().catch(() => {})
      return
    }
    listener = client
    failures = 0
    stats.listens++
    if (stats.listens > 1) onRelisten()
  }

  return {
    /** Starts listening: PGlite's listen(), or the dedicated PostgreSQL connection. */
    async start(pglite: PGlite | null, connectionString?: string) {
      if (pglite) await listenEmbedded(pglite)
      else if (connectionString) await listenPostgres(connectionString)
    },

    /** The listening connection's backend pid (tests end it to prove the listener comes back). */
    async pid(): Promise<number | null> {
      if (!listener) return null
      const { rows } = await listener.query<{ pid: number }>('select pg_backend_pid() as pid')
      return rows[0]?.pid ?? null
    },

    /** Asks the listening connection something; one that does not answer in 2 s is replaced. */
    async ping() {
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
    },

    /** Stops listening for good. */
    async stop() {
      listening = false
      if (reconnectTimer) clearTimeout(reconnectTimer)
      reconnectTimer = null
      const client = listener
      listener = null
      if (client) await client.end().catch(() => {})
      const stop = unlisten
      unlisten = null
      if (stop) await stop().catch(() => {})
    },
  }
}
