// The embedded database's watchdog. PGlite runs PostgreSQL in WebAssembly on the server's own thread:
// while a statement runs, nothing else of the process does (no request, no timer, no SIGTERM handler),
// and PostgreSQL's statement_timeout never fires inside it (it needs a timer signal the WebAssembly
// build does not deliver: tests/server/db/watchdog.test.ts). A statement that never returns (PGlite
// hung on a long row-constructor IN list, docs/upstream/pglite-row-constructor-hang.md) froze the whole
// server at 100 % CPU, unseen. So a thread of its own watches: every call into the database marks a
// shared counter before and after; when one call has been running for longer than the limit, the
// watchdog writes what it was (the statement's text) to standard error and ends the process with
// SIGKILL, the only thing that can end a thread stuck in WebAssembly, so that the supervisor restarts
// it (kill -9 is safe for the embedded database: docs/operations.md).
import { Worker } from 'node:worker_threads'
import type { PGlite } from '@electric-sql/pglite'

/** The bytes of a statement's text kept for the report. */
const textBytes = 4096

/** The watchdog's thread: polls the shared state; says what stalled and kills the process. */
const watcher = `
const { workerData } = require('node:worker_threads')
const { writeSync } = require('node:fs')
const { state, text, limitMs, pollMs } = workerData
const counter = new Int32Array(state)
const bytes = new Uint8Array(text)
let seen = -1
let since = 0
setInterval(() => {
  const now = Date.now()
  const calls = Atomics.load(counter, 0)
  if (calls % 2 === 0 || calls !== seen) {
    seen = calls
    since = now
    return
  }
  if (now - since < limitMs) return
  const length = Atomics.load(counter, 1)
  const kind = String.fromCharCode(Atomics.load(counter, 2))
  const parts = Buffer.from(bytes.slice(0, length)).toString('utf8').split('\\0')
  // A Parse message holds the statement's name, then its text; a simple Query, the text.
  const statement = (kind === 'P' ? parts[1] : parts[0]) || '(unknown)'
  writeSync(2, 'Embedded database stalled: a statement has not answered for ' + Math.round((now - since) / 1000) +
    ' s (limit DB_STALL_SECONDS=' + limitMs / 1000 + '). Ending the process (SIGKILL) so that its supervisor ' +
    'restarts it; nothing committed is lost. Statement: ' + statement.replace(/\\s+/g, ' ').slice(0, 2000) + '\\n')
  process.kill(process.pid, 'SIGKILL')
}, pollMs)
`

export interface Watchdog {
  /** Stops watching (the database's close). */
  stop(): Promise<void>
}

/**
 * Watches every call into `client` (PGlite's `execProtocolRawSync`, which every query, exec and
 * transaction statement goes through): one running for longer than `limitMs` ends the process.
 */
export function watchDatabase(client: PGlite, limitMs: number): Watchdog {
  const state = new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT)
  const text = new SharedArrayBuffer(textBytes)
  const counter = new Int32Array(state)
  const bytes = new Uint8Array(text)
  const worker = new Worker(watcher, {
    eval: true,
    workerData: { state, text, limitMs, pollMs: Math.max(10, Math.min(1000, Math.floor(limitMs / 10))) },
  })
  // It neither keeps the process alive nor holds up its exit.
  worker.unref()
  const call = client.execProtocolRawSync.bind(client)
  const P = 'P'.charCodeAt(0)
  const Q = 'Q'.charCodeAt(0)
  client.execProtocolRawSync = (message: Uint8Array) => {
    const kind = message[0]
    if (kind === P || kind === Q) {
      // The statement's text (after the type byte and the length), for the report.
      const body = message.subarray(5, 5 + textBytes)
      bytes.set(body)
      Atomics.store(counter, 1, body.length)
      Atomics.store(counter, 2, kind)
    }
    Atomics.add(counter, 0, 1)
    try {
      return call(message)
    } finally {
      Atomics.add(counter, 0, 1)
    }
  }
  return {
    async stop() {
      client.execProtocolRawSync = call
      await worker.terminate()
    },
  }
}
