// The reference device: pairs once, then delivers the sales it is given, store-and-forward. Sales are
// taken into the durable queue (queue.ts) and sent oldest first in batches, each with an
// Idempotency-Key kept on disk with its exact body; a failed attempt is tried again after a backoff with
// jitter (network errors, timeouts, 409, 429 with its Retry-After, 5xx), any other 4xx stops the device
// and is reported. A sale leaves the queue only after a 2xx whose answer accounts for every sale sent
// (stored, already there, or rejected). Every minute it tells the server how many
// sales it still holds (heartbeat). Killed at any point and started again it loses nothing and sends
// nothing twice under another key; resending the same batch is safe (the server answers it again).
// Acknowledged sales are kept 7 days (1 MiB at most): when an answer tells a new generation of the
// server's database (it may have lost some: a restore, a power cut), they are sent again (queue.ts).

import { heartbeatMs, maxSalesBytes, maxSalesPerBatch } from '../domain/devices.ts'
import { batchBody, type Sale } from './batch.ts'
import {
  accountsFor,
  backoffMs,
  DeviceApi,
  type Fetch,
  isPlainHttpElsewhere,
  plainHttpWarning,
} from './http.ts'
import { type Identity, readIdentity, writeIdentity } from './identity.ts'
import { DurableQueue } from './queue.ts'

export interface DeviceOptions {
  /** Overrides the server address kept at pairing. */
  server?: string
  fetch?: Fetch
  /** Per request; 30 s by default. */
  timeoutMs?: number
  retry?: { baseMs: number; maxMs: number }
  /** 60 s by default. */
  heartbeatMs?: number
  /** Where the device says what it does (one line each); nothing by default. */
  log?: (line: string) => void
  /** The device's clock (the `sentAt` of batches and heartbeats, which gives the server the skew). */
  now?: () => Date
  /** Most sales a batch holds (500, the server's limit, by default). */
  batchSales?: number
  /** The journal is compacted once it is this long (1 MiB by default). */
  compactBytes?: number
  /**
   * What each heartbeat also says of the store (`machines`, `terminal`: docs/product.md §14), read anew
   * at each one; nothing when it answers undefined. A heartbeat the server refuses for it (400) is
   * reported, and the device goes on.
   */
  storeReport?: () => Record<string, unknown> | undefined
  /** Pair over plain http with another machine (refused otherwise: `isPlainHttpElsewhere`). */
  allowHttp?: boolean
  /** How long acknowledged sales are kept to be sent again (7 days by default). */
  keptMs?: number
  /** How many bytes of acknowledged sales are kept (1 MiB by default). */
  keptBytes?: number
}

export class PairingError extends Error {}

/** Pairs with a code shown on the owner's devices screen and keeps the key owner-only in `dir`. */
export async function pair(dir: string, server: string, code: string, options: DeviceOptions = {}) {
  if (isPlainHttpElsewhere(server) && !options.allowHttp)
    throw new PairingError(`pairing refused: ${plainHttpWarning(server)}`)
  const api = new DeviceApi(server, options)
  const outcome = await api.pair(code.trim())
  if (outcome.kind === 'retry') throw new PairingError(`could not reach ${server}: ${outcome.reason}`)
  if (outcome.kind === 'stop')
    throw new PairingError(`pairing refused (${outcome.status}): ${outcome.message}`)
  const identity: Identity = {
    server,
    deviceId: outcome.value.deviceId,
    storeId: outcome.value.storeId,
    key: outcome.value.key,
    pairedAt: new Date().toISOString(),
  }
  writeIdentity(dir, identity)
  return identity
}

export interface Stopped {
  /** Set when the server refused the device (a 4xx other than 409 and 429): the reason to report. */
  refused?: { status: number; message: string; call: 'sales' | 'heartbeat' }
}

export class Device {
  readonly queue: DurableQueue
  private readonly api: DeviceApi
  private readonly identity: Identity
  private stopped = false
  private wake: (() => void) | undefined
  private heartbeatTimer: ReturnType<typeof setInterval> | undefined
  private finished: Promise<Stopped> | undefined
  private refused: Stopped['refused']
  private readonly idleWaiters: (() => void)[] = []
  private beating: Promise<void> | undefined
  /** Calls made so far, and the call whose answer last moved the generation. */
  private calls = 0
  private movedBy = 0

  constructor(
    readonly dir: string,
    private readonly options: DeviceOptions = {},
  ) {
    const identity = readIdentity(dir)
    if (!identity) throw new PairingError(`not paired: no key in ${dir} (pair first)`)
    this.identity = identity
    const now = options.now
    this.queue = DurableQueue.open(dir, {
      ...(options.compactBytes ? { compactBytes: options.compactBytes } : {}),
      ...(options.keptMs === undefined ? {} : { keptMs: options.keptMs }),
      ...(options.keptBytes === undefined ? {} : { keptBytes: options.keptBytes }),
      ...(now ? { now: () => now().getTime() } : {}),
    })
    this.api = new DeviceApi(options.server ?? identity.server, options)
  }

  get storeId() {
    return this.identity.storeId
  }

  private log(line: string) {
    this.options.log?.(line)
  }

  /** Queues sales durably (synced) and returns the ones taken; only then may they be reported taken. */
  take(sales: Sale[]): Sale[] {
    const taken = this.queue.add(sales)
    if (taken.length > 0) this.wake?.()
    return taken
  }

  /** Starts delivering and the heartbeats; resolves when stopped (stop(), or refused by the server). */
  start(): Promise<Stopped> {
    if (!this.finished) {
      const every = this.options.heartbeatMs ?? heartbeatMs
      const beat = () => {
        this.beating ??= this.beat().finally(() => {
          this.beating = undefined
        })
      }
      beat()
      this.heartbeatTimer = setInterval(beat, every)
      // Resolves only when no call of the device is in flight any more (a server may close after it).
      this.finished = this.deliver().finally(async () => {
        if (this.heartbeatTimer) clearInterval(this.heartbeatTimer)
        for (const resolve of this.idleWaiters.splice(0)) resolve()
        await this.beating
      })
    }
    return this.finished
  }

  stop() {
    this.stopped = true
    this.wake?.()
  }

  /** Resolves once the queue is empty (or the device has stopped). */
  idle(): Promise<void> {
    if (this.queue.length === 0 || this.stopped) return Promise.resolve()
    return new Promise((resolve) => this.idleWaiters.push(resolve))
  }

  private refuse(call: 'sales' | 'heartbeat', status: number, message: string) {
    this.refused ??= { status, message, call }
    this.log(`refused by the server (${call}, ${status}): ${message}; stopping`)
    this.stop()
  }

  /**
   * The generation told in the answer to call `call`. One that moved sends the kept sales again
   * (queue.ts); an answer to a call made before the last move is older news and is not heeded.
   */
  private observe(generation: string | undefined, call: number) {
    if (generation === undefined || call < this.movedBy) return
    const before = this.queue.generation
    const resent = this.queue.observeGeneration(generation)
    if (before === undefined || before === generation) return
    this.movedBy = call
    this.log(
      `the server's database changed generation (${before} -> ${generation}): sending again ${resent} sale(s) it acknowledged`,
    )
    if (resent > 0) this.wake?.()
  }

  private async beat() {
    if (this.stopped) return
    const now = this.options.now ?? (() => new Date())
    const call = ++this.calls
    const store = this.options.storeReport?.()
    const outcome = await this.api.heartbeat(this.identity.key, this.queue.length, now().toISOString(), store)
    if (outcome.kind === 'stop' && outcome.status === 400 && store)
      this.log(`heartbeat refused for what it said of the store: ${outcome.message}`)
    else if (outcome.kind === 'stop') this.refuse('heartbeat', outcome.status, outcome.message)
    else if (outcome.kind === 'retry') this.log(`heartbeat failed: ${outcome.reason}`)
    else if (!this.stopped) this.observe(outcome.value.generation, call)
  }

  /** Waits `ms`, or less if woken (a new sale, or stop()). */
  private pause(ms: number, wakeOnSale: boolean) {
    return new Promise<void>((resolve) => {
      const timer = ms === Number.POSITIVE_INFINITY ? undefined : setTimeout(done, ms)
      function done() {
        if (timer) clearTimeout(timer)
        resolve()
      }
      this.wake = wakeOnSale ? done : () => this.stopped && done()
    }).finally(() => {
      this.wake = undefined
    })
  }

  private async deliver(): Promise<Stopped> {
    const retry = this.options.retry ?? { baseMs: 1000, maxMs: 60_000 }
    const now = this.options.now ?? (() => new Date())
    let attempt = 0
    while (!this.stopped) {
      const batch = this.queue.nextBatch({
        sales: Math.min(this.options.batchSales ?? maxSalesPerBatch, maxSalesPerBatch),
        bytes: maxSalesBytes,
      })
      if (!batch) {
        for (const resolve of this.idleWaiters.splice(0)) resolve()
        await this.pause(Number.POSITIVE_INFINITY, true)
        continue
      }
      const call = ++this.calls
      const outcome = await this.api.sendSales(
        this.identity.key,
        batch.key,
        batchBody(batch, now().toISOString()),
      )
      if (this.stopped && outcome.kind !== 'ok') break
      if (outcome.kind === 'ok' && !accountsFor(batch.ids, outcome.value)) {
        // Not every sale sent is stored, a duplicate or rejected: no acknowledgement, the batch stays.
        const { accepted, duplicates, rejected } = outcome.value
        const wait = backoffMs(attempt++, retry)
        this.log(
          `the answer accounts for ${accepted} new, ${duplicates} already there and ${rejected.length} rejected of ${batch.ids.length} sale(s) sent; trying again in ${Math.round(wait)} ms`,
        )
        await this.pause(wait, false)
      } else if (outcome.kind === 'ok') {
        const { accepted, duplicates, rejected, generation } = outcome.value
        // Before the batch is acknowledged: its sales are in the generation that answered.
        this.observe(generation, call)
        if (
          generation !== undefined &&
          this.queue.generation !== undefined &&
          generation !== this.queue.generation
        ) {
          // Stored by a generation the server has left since (its writes may be among those lost): no
          // acknowledgement; the batch goes again under its key, which the server answers as it is now.
          this.log(`answered by the server's database generation ${generation}, left since: sending again`)
          continue
        }
        this.queue.ack(batch.key, rejected)
        attempt = 0
        this.log(
          `delivered ${batch.ids.length} sale(s): ${accepted} new, ${duplicates} already there, ${rejected.length} rejected`,
        )
        for (const { id, message } of rejected) this.log(`sale ${id} rejected: ${message}`)
      } else if (outcome.kind === 'retry') {
        const wait = backoffMs(attempt++, retry, outcome.retryAfterMs)
        this.log(`sending failed (${outcome.reason}); trying again in ${Math.round(wait)} ms`)
        await this.pause(wait, false)
      } else {
        this.refuse('sales', outcome.status, outcome.message)
      }
    }
    return this.refused ? { refused: this.refused } : {}
  }

  close() {
    this.stop()
    this.queue.close()
  }
}
