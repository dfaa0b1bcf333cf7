// The device's store-and-forward queue: the sales taken and not yet acknowledged, the batch in flight,
// the ids delivered recently and the sales kept after their acknowledgement (kept-sales.ts), all
// journaled on disk (journal.ts, where the format is) and synced before anything is said about them.
import { maxSalesBytes, maxSalesPerBatch } from '../domain/devices.ts'
import { type Batch, chooseBatch, type Rejected, type Sale } from './batch.ts'
import { type Entry, Journal } from './journal.ts'
import { KEPT_BYTES, KEPT_MS, KeptSales } from './kept-sales.ts'

export interface QueueOptions {
  /** The journal is compacted once it is this long (and twice as long as after its last compaction). */
  compactBytes: number
  /** How long acknowledged sales are kept (KEPT_MS). */
  keptMs: number
  /** How many bytes of acknowledged sales are kept (KEPT_BYTES). */
  keptBytes: number
  /** The device's clock (ms). */
  now: () => number
}

/** How many delivered ids are remembered to refuse a sale fed twice. */
const SEEN_KEPT = 10_000
/** The journal is rewritten once it is this long and at least half of it is spent. */
const COMPACT_BYTES = 1024 * 1024

export class DurableQueue {
  private readonly journal: Journal
  private readonly pending = new Map<string, Sale>()
  private readonly seen = new Set<string>()
  private flight: Batch | undefined
  /** Acknowledged sales. */
  private readonly keptSales: KeptSales
  private known: string | undefined
  /** The journal's size after the last compaction: it is compacted again once twice as long. */
  private liveBytes = 0

  private constructor(
    dir: string,
    private readonly options: QueueOptions,
  ) {
    this.keptSales = new KeptSales(options)
    this.journal = new Journal(dir, (entry) => this.replay(entry))
    this.keptSales.prune()
  }

  static open(dir: string, options: Partial<QueueOptions> = {}) {
    return new DurableQueue(dir, {
      compactBytes: options.compactBytes ?? COMPACT_BYTES,
      keptMs: options.keptMs ?? KEPT_MS,
      keptBytes: options.keptBytes ?? KEPT_BYTES,
      now: options.now ?? Date.now,
    })
  }

  private replay(entry: Entry) {
    if ('sale' in entry) this.pending.set(entry.sale.id, entry.sale)
    else if ('batch' in entry) this.flight = entry.batch
    else if ('acked' in entry) this.settle(entry.acked, entry.rejected ?? [], entry.at ?? this.options.now())
    else if ('seen' in entry) for (const id of entry.seen) this.remember(id)
    else if ('kept' in entry) for (const sale of entry.kept.sales) this.keptSales.keep(sale, entry.kept.at)
    else if ('generation' in entry) this.known = entry.generation
    else if ('resend' in entry) this.requeueKept(entry.resend)
  }

  private requeueKept(generation: string) {
    for (const sale of this.keptSales.takeAll()) this.pending.set(sale.id, sale)
    this.known = generation
  }

  private remember(id: string) {
    this.seen.add(id)
    if (this.seen.size > SEEN_KEPT) {
      const [oldest] = this.seen
      if (oldest !== undefined) this.seen.delete(oldest)
    }
  }

  private settle(key: string, rejected: Rejected[], at: number) {
    if (!this.flight || this.flight.key !== key) return
    const refused = new Set(rejected.map((sale) => String(sale.id)))
    for (const sale of JSON.parse(this.flight.sales) as Sale[]) {
      this.pending.delete(sale.id)
      this.remember(sale.id)
      if (!refused.has(String(sale.id))) this.keptSales.keep(sale, at)
    }
    this.flight = undefined
  }

  /** Sales not yet acknowledged by the server, the batch in flight included. */
  get length() {
    return this.pending.size
  }

  /** Whether a sale with this id is queued, in flight or was delivered recently. */
  has(id: string) {
    return this.pending.has(id) || this.seen.has(id)
  }

  /**
   * Queues the sales (in order) and syncs them to disk before returning: only then may the caller say
   * they are taken. A sale whose id is already queued or was delivered recently is left out; the ones
   * queued are returned.
   */
  add(sales: Sale[]): Sale[] {
    const fresh: Sale[] = []
    for (const sale of sales) {
      if (this.has(sale.id) || fresh.some((other) => other.id === sale.id)) continue
      fresh.push(sale)
    }
    this.journal.append(fresh.map((sale) => ({ sale })))
    for (const sale of fresh) this.pending.set(sale.id, sale)
    return fresh
  }

  /** The batch in flight, if any (after a restart: the one a crash interrupted). */
  get inFlight(): Batch | undefined {
    return this.flight
  }

  /**
   * The batch to send now: the one in flight, else the oldest sales that fit (at most 500, and 64 KiB
   * with a `sentAt` of the usual 24 characters),
   * written to disk with a new Idempotency-Key before it is returned. Undefined when the queue is empty.
   */
  nextBatch(limits = { sales: maxSalesPerBatch, bytes: maxSalesBytes }) {
    if (this.flight) return this.flight
    if (this.pending.size === 0) return undefined
    const batch = chooseBatch(this.pending.values(), limits)
    this.journal.append([{ batch }])
    this.flight = batch
    return batch
  }

  /**
   * The server answered the batch with a 2xx: its sales (accepted, duplicates and rejected alike) leave
   * the queue, journaled and synced, so a restart never sends them again.
   */
  ack(key: string, rejected: Rejected[] = []) {
    if (!this.flight || this.flight.key !== key) throw new Error(`no batch ${key} in flight`)
    const at = this.options.now()
    this.journal.append([rejected.length > 0 ? { acked: key, rejected, at } : { acked: key, at }])
    this.settle(key, rejected, at)
    this.keptSales.prune()
    if (this.journal.size >= Math.max(this.options.compactBytes, 2 * this.liveBytes)) this.compact()
  }

  /** Acknowledged sales kept to be sent again, oldest acknowledgement first. */
  get kept(): Sale[] {
    return this.keptSales.list()
  }

  /** The server database's generation last seen; undefined before the first answer that told it. */
  get generation(): string | undefined {
    return this.known
  }

  /**
   * The server told its database's generation. The first one is noted; a different one means the server
   * may have lost sales it acknowledged: every kept sale goes back into the queue (journaled and synced)
   * and is sent again. Returns how many.
   */
  observeGeneration(generation: string): number {
    if (generation === this.known) return 0
    if (this.known === undefined) {
      this.journal.append([{ generation }])
      this.known = generation
      return 0
    }
    this.keptSales.prune()
    const count = this.keptSales.size
    this.journal.append([{ resend: generation }])
    this.requeueKept(generation)
    return count
  }

  /**
   * Rewrites the journal with only what is live: recently delivered ids, the generation, kept sales, queued
   * sales, the batch in flight.
   */
  compact() {
    this.keptSales.prune()
    const entries: Entry[] = [{ seen: [...this.seen] }]
    if (this.known !== undefined) entries.push({ generation: this.known })
    for (const kept of this.keptSales.groups()) entries.push({ kept })
    for (const sale of this.pending.values()) entries.push({ sale })
    if (this.flight) entries.push({ batch: this.flight })
    this.journal.rewrite(entries)
    this.liveBytes = this.journal.size
  }

  close() {
    this.journal.close()
  }
}
