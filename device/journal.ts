// The journal of the device's store-and-forward queue (queue.ts): one append-only file on disk, synced
// before anything is said about what it holds. Every line is one JSON entry:
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
import type { Batch, Rejected, Sale } from './batch.ts'

export type Entry =
  | { sale: Sale }
  | { batch: Batch }
  | { acked: string; rejected?: Rejected[]; at?: number }
  | { seen: string[] }
  | { kept: { at: number; sales: Sale[] } }
  | { generation: string }
  | { resend: string }

const linesOf = (entries: Entry[]) =>
  Buffer.from(entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''))

function writeAll(fd: number, bytes: Buffer) {
  let written = 0
  while (written < bytes.length) written += writeSync(fd, bytes, written)
  fsyncSync(fd)
}

export class Journal {
  private readonly file: string
  private fd: number
  /** The file's length in bytes. */
  size: number

  /** Opens the journal in `dir` (made if missing), cuts off a torn last line, and hands `replay` every entry. */
  constructor(
    private readonly dir: string,
    replay: (entry: Entry) => void,
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
      if (line !== '') replay(JSON.parse(line) as Entry)
    }
  }

  /** Appends the entries and syncs them before returning. */
  append(entries: Entry[]) {
    if (entries.length === 0) return
    const bytes = linesOf(entries)
    writeAll(this.fd, bytes)
    this.size += bytes.length
  }

  /**
   * Replaces the journal with `entries`: written to a new file, synced, renamed over the journal
   * (atomic), then the folder synced.
   */
  rewrite(entries: Entry[]) {
    const bytes = linesOf(entries)
    const next = `${this.file}.next`
    const fd = openSync(next, 'w', 0o600)
    try {
      writeAll(fd, bytes)
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
