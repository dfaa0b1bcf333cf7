// The device's store-and-forward queue: one append-only journal on disk, synced before anything is
// said about what it holds. Every line is one JSON entry:
//
//   {"sale": {id, createdAt, amount}}          a sale taken (the caller says "taken" only after add())
//   {"batch": {key, sales, ids}}               the next batch to send, with its Idempotency-Key and its
//                                              sales as sent (JSON text), written before the first
//                                              attempt, so a retry after a crash sends the same key with
//                                              the same sales (the body's `sentAt`, the device's clock at
//                                              each attempt, is not part of a batch's identity)
//   {"acked": key, "rejected": [{id,message}]} the server answered 2xx: the batch's sales leave the queue
//   {"seen": [id, ...]}                        ids delivered recently (kept through a compaction), so a
//                                              sale fed again after a crash is not queued twice
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

type Entry = { sale: Sale } | { batch: Batch } | { acked: string; rejected?: Rejected[] } | { seen: string[] }

export const MAX_BATCH_SALES = 500
export const MAX_BATCH_BYTES = 64 * 1024
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

  private constructor(
    private readonly dir: string,
    private readonly options: { compactBytes: number },
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
  }

  static open(dir: string, options: { compactBytes?: number } = {}) {
    return new DurableQueue(dir, { compactBytes: options.compactBytes ?? COMPACT_BYTES })
  }

  private replay(entry: Entry) {
    if ('sale' in entry) this.pending.set(entry.sale.id, entry.sale)
    else if ('batch' in entry) this.flight = entry.batch
    else if ('acked' in entry) this.settle(entry.acked)
    else if ('seen' in entry) for (const id of entry.seen) this.remember(id)
  }

  private remember(id: string) {
    this.seen.add(id)
    if (this.seen.size > SEEN_KEPT) {
      const [oldest] = this.seen
      if (oldest !== undefined) this.seen.delete(oldest)
    }
  }

  private settle(key: string) {
    if (!this.flight || this.flight.key !== key) return
    for (const id of this.flight.ids) {
      this.pending.delete(id)
      this.remember(id)
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
  nextBatch(limits = { sales: MAX_BATCH_SALES, bytes: MAX_BATCH_BYTES }) {
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
    this.append([rejected.length > 0 ? { acked: key, rejected } : { acked: key }])
    this.settle(key)
    if (this.size >= this.options.compactBytes) this.compact()
  }

  /** Rewrites the journal with only what is live: recently delivered ids, queued sales, the batch in flight. */
  compact() {
    const entries: Entry[] = [{ seen: [...this.seen] }]
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
