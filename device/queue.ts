// The device's store-and-forward queue: one append-only journal on disk, synced before anything is
// said about what it holds. Every line is one JSON entry:
//
//   {"sale": {id, createdAt, amount}}          a sale taken (the caller says "taken" only after add())
//   {"batch": {key, sales, ids}}               the next batch to send, with its Idempotency-Key and its
//                                              sales as sent (JSON text), written before the first
//                                              attempt, so a retry after a crash sends the same key with
//                                              the same sales (the body's `sentAt`, the device's clock at
//                                              each attempt, is not part of a batch's identity)
//   {"acked": key, "rejected": [{id,message}], "at": time}
//                                              the server answered 2xx: the batch's sales leave the queue;
//                                              those not rejected are kept as acknowledged at `at` (ms)
//   {"seen": [id, ...]}                        ids delivered recently (kept through a compaction), so a
//                                              sale fed again after a crash is not queued twice
//   {"kept": {"at": time, "sales": [...]}}     acknowledged sales kept (written by a compaction)
//   {"generation": token}                      the server database's generation the device knows
//   {"resend": token}                          the generation changed to `token`: every kept sale goes
//                                              back into the queue, to be sent again
//
// Acknowledged sales are kept KEPT_MS (7 days) and KEPT_BYTES (1 MiB of their JSON) at most, the oldest
// dropped first: a server that lost some (a snapshot restored, a power cut of its embedded database)
// says so with a new generation in its answers, and gets them again; the per-device sale ids make that
// safe (the ones it still holds count as duplicates).
//
// A kill at any point leaves at most a torn last line, which was never synced and never acknowledged:
// it is cut off on the next open. Compaction writes the live entries to a new file, syncs it and
// renames it over the journal (atomic), then syncs the folder.
import { randomUUID } from 'node:crypto'
import {
  closeSync,
  existsSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  writeSync,
} from 'node:fs'
import path from 'node:path'
import { maxSalesBytes, maxSalesPerBatch } from '../domain/devices.ts'

export interface Sale {
  id: string
  /** An ISO 8601 instant with an offset. */
  createdAt: string
  /** Whole won; negative for a refund. */
  amount: number
}

export interface Batch {
  key: string
  /** The batch's sales as JSON text, byte for byte what every attempt sends. */
  sales: string
  ids: string[]
}

/** The body of one attempt: the batch's sales, and the device's clock as it sends. */
export const batchBody = (batch: Batch, sentAt: string) =>
  `{"sales":${batch.sales},"sentAt":${JSON.stringify(sentAt)}}`

export interface Rejected {
  id: string
  message: string
}

type Entry =
  | { sale: Sale }
  | { batch: Batch }
  | { acked: string; rejected?: Rejected[]; at?: number }
  | { seen: string[] }
  | { kept: { at: number; sales: Sale[] } }
  | { generation: string }
  | { resend: string }

interface KeptSale {
  sale: Sale
  /** When the server acknowledged it (ms). */
  at: number
  bytes: number
}

/** How long an acknowledged sale is kept, to be sent again to a server that lost it. */
export const KEPT_MS = 7 * 24 * 60 * 60 * 1000
/** At most this many bytes (their JSON) of acknowledged sales are kept; the oldest go first. */
export const KEPT_BYTES = 1024 * 1024

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
  private readonly file: string
  private fd: number
  private size: number
  private readonly pending = new Map<string, Sale>()
  private readonly seen = new Set<string>()
  private flight: Batch | undefined
  /** Acknowledged sales, oldest acknowledgement first. */
  private readonly keptSales = new Map<string, KeptSale>()
  private keptTotal = 0
  private known: string | undefined
  /** The journal's size after the last compaction: it is compacted again once twice as long. */
  private liveBytes = 0

  private constructor(
    private readonly dir: string,
    private readonly options: QueueOptions,
  ) {
    this.file = path.join(dir, 'queue.jsonl')
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    const text = existsSync(this.file) ? readFileSync(this.file, 'utf8') : ''
    const end = text.lastIndexOf('\n') + 1
    this.fd = openSync(this.file, 'a+', 0o600)
    if (end < Buffer.byteLength(text)) {
      // A torn last line: never synced, never acknowledged.
      ftruncateSync(this.fd, Buffer.byteLength(text.slice(0, end)))
      fsyncSync(this.fd)
    }
    this.size = Buffer.byteLength(text.slice(0, end))
    for (const line of text.slice(0, end).split('\n')) {
      if (line !== '') this.replay(JSON.parse(line) as Entry)
    }
    this.prune()
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
    else if ('kept' in entry) for (const sale of entry.kept.sales) this.keep(sale, entry.kept.at)
    else if ('generation' in entry) this.known = entry.generation
    else if ('resend' in entry) this.requeueKept(entry.resend)
  }

  private keep(sale: Sale, at: number) {
    const bytes = Buffer.byteLength(JSON.stringify(sale))
    const before = this.keptSales.get(sale.id)
    if (before) {
      this.keptSales.delete(sale.id)
      this.keptTotal -= before.bytes
    }
    this.keptSales.set(sale.id, { sale, at, bytes })
    this.keptTotal += bytes
  }

  /** Drops acknowledged sales past their age, then the oldest until they fit their bytes. */
  private prune() {
    const oldest = this.options.now() - this.options.keptMs
    for (const [id, kept] of this.keptSales) {
      if (kept.at >= oldest && this.keptTotal <= this.options.keptBytes) break
      this.keptSales.delete(id)
      this.keptTotal -= kept.bytes
    }
  }

  private requeueKept(generation: string) {
    for (const { sale } of this.keptSales.values()) this.pending.set(sale.id, sale)
    this.keptSales.clear()
    this.keptTotal = 0
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
      if (!refused.has(String(sale.id))) this.keep(sale, at)
    }
    this.flight = undefined
  }

  private append(entries: Entry[]) {
    if (entries.length === 0) return
    const bytes = Buffer.from(entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''))
    let written = 0
    while (written < bytes.length) written += writeSync(this.fd, bytes, written)
    fsyncSync(this.fd)
    this.size += bytes.length
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
    this.append(fresh.map((sale) => ({ sale })))
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
    // The body is `{"sales":[...],"sentAt":"2026-11-25T09:00:00.000Z"}`; count the bytes as they will be sent.
    let bytes = Buffer.byteLength(batchBody({ key: '', sales: '[]', ids: [] }, new Date(0).toISOString()))
    const chosen: Sale[] = []
    for (const sale of this.pending.values()) {
      const more = Buffer.byteLength(JSON.stringify(sale)) + (chosen.length > 0 ? 1 : 0)
      if (chosen.length >= limits.sales || bytes + more > limits.bytes) break
      chosen.push(sale)
      bytes += more
    }
    if (chosen.length === 0) throw new Error('a single sale is larger than a batch may be')
    const batch: Batch = {
      key: randomUUID(),
      sales: JSON.stringify(chosen),
      ids: chosen.map((sale) => sale.id),
    }
    this.append([{ batch }])
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
    this.append([rejected.length > 0 ? { acked: key, rejected, at } : { acked: key, at }])
    this.settle(key, rejected, at)
    this.prune()
    if (this.size >= Math.max(this.options.compactBytes, 2 * this.liveBytes)) this.compact()
  }

  /** Acknowledged sales kept to be sent again, oldest acknowledgement first. */
  get kept(): Sale[] {
    return [...this.keptSales.values()].map((kept) => kept.sale)
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
      this.append([{ generation }])
      this.known = generation
      return 0
    }
    this.prune()
    const count = this.keptSales.size
    this.append([{ resend: generation }])
    this.requeueKept(generation)
    return count
  }

  /**
   * Rewrites the journal with only what is live: recently delivered ids, the generation, kept sales, queued
   * sales, the batch in flight.
   */
  compact() {
    this.prune()
    const entries: Entry[] = [{ seen: [...this.seen] }]
    if (this.known !== undefined) entries.push({ generation: this.known })
    let group: { at: number; sales: Sale[] } | undefined
    for (const { sale, at } of this.keptSales.values()) {
      if (group?.at !== at) {
        group = { at, sales: [] }
        entries.push({ kept: group })
      }
      group.sales.push(sale)
    }
    for (const sale of this.pending.values()) entries.push({ sale })
    if (this.flight) entries.push({ batch: this.flight })
    const bytes = Buffer.from(entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''))
    const next = `${this.file}.next`
    const fd = openSync(next, 'w', 0o600)
    try {
      let written = 0
      while (written < bytes.length) written += writeSync(fd, bytes, written)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(next, this.file)
    syncFolder(this.dir)
    closeSync(this.fd)
    this.fd = openSync(this.file, 'a+', 0o600)
    this.size = statSync(this.file).size
    this.liveBytes = this.size
  }

  close() {
    closeSync(this.fd)
  }
}

/** Makes a rename in `dir` durable (a no-op where folders cannot be opened, e.g. Windows). */
export function syncFolder(dir: string) {
  let fd: number | undefined
  try {
    fd = openSync(dir, 'r')
    fsyncSync(fd)
  } catch {
    // Not supported here.
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}
