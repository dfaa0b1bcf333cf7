// The server's snapshot schedule (snapshots.ts writes each one).
import type { PGlite } from '@electric-sql/pglite'
import { type SnapshotResult, writeSnapshot } from './snapshots.ts'

/**
 * The server's schedule: a snapshot every `minutes`, skipped when nothing was written since the last one
 * (the write-ahead log's insert position has not moved: cheap to read, and every change moves it), and
 * a last one on shutdown. One snapshot at a time.
 */
export class SnapshotSchedule {
  #last: string | null = null
  #timer: NodeJS.Timeout | undefined
  #queue: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly pglite: PGlite,
    private readonly options: { dir: string; kept: number; minutes: number },
    private readonly log: {
      info(fields: object, message: string): void
      error(fields: object, message: string): void
    },
  ) {}

  async #position() {
    const result = await this.pglite.query<{ lsn: string }>('select pg_current_wal_insert_lsn()::text as lsn')
    return result.rows[0]?.lsn ?? ''
  }

  /** Takes a snapshot unless nothing changed since the last one this schedule took; null when skipped. */
  takeIfChanged(reason: string): Promise<SnapshotResult | null> {
    const run = this.#queue.then(async () => {
      const before = await this.#position()
      if (before === this.#last) return null
      const result = await writeSnapshot(this.pglite, this.options)
      // Read after the CHECKPOINT (which moves the position itself); a write that slipped in between only
      // makes the next run take a snapshot it could have skipped.
      this.#last = await this.#position()
      this.log.info(
        {
          reason,
          file: result.file,
          bytes: result.bytes,
          blockedMs: Math.round(result.blockedMs),
          totalMs: Math.round(result.totalMs),
          removed: result.removed,
        },
        'database snapshot written',
      )
      return result
    })
    this.#queue = run.catch(() => {})
    return run
  }

  start() {
    this.#timer = setInterval(() => {
      this.takeIfChanged('schedule').catch((error: unknown) =>
        this.log.error({ err: error }, 'database snapshot failed'),
      )
    }, this.options.minutes * 60_000)
    this.#timer.unref()
  }

  /** Stops the schedule and takes a last snapshot if anything changed. */
  async stop() {
    clearInterval(this.#timer)
    await this.takeIfChanged('shutdown')
  }
}
