// The device's three calls (docs/operations.md, "Devices"), and what each answer means for it: done,
// try again later (network errors, timeouts, 409, 429 and 5xx, and a 2xx that is not the call's answer),
// or stop and tell someone (any other 4xx). The sales and heartbeat answers tell the server database's
// generation (queue.ts, observeGeneration).
import { backoff, retryAfterMs } from '../domain/backoff.ts'
import type { Rejected } from './batch.ts'

export interface SalesAnswer {
  accepted: number
  duplicates: number
  rejected: Rejected[]
  serverTime: string
  /** The server database's generation (absent from older servers). */
  generation?: string
}

/** The heartbeat's answer header with the database's generation (contract/api.ts, generationHeader). */
const generationHeader = 'database-generation'

export interface PairAnswer {
  deviceId: number
  storeId: number
  key: string
}

export type Outcome<T> =
  | { kind: 'ok'; value: T }
  | { kind: 'retry'; reason: string; retryAfterMs?: number }
  | { kind: 'stop'; status: number; message: string }

/** The network the device speaks through; tests hand in a fake one. */
export type Fetch = (url: string, init: RequestInit) => Promise<Response>

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export { retryAfterMs }

async function messageOf(response: Response): Promise<string> {
  const text = await response.text().catch(() => '')
  try {
    const body = JSON.parse(text) as { message?: unknown }
    if (typeof body.message === 'string') return body.message
  } catch {
    // Not our error body.
  }
  return text.slice(0, 200) || response.statusText
}

const count = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null

/** A 2xx's body read as the sales call's answer; throws when it is not one (a proxy's page, say). */
async function readSalesAnswer(response: Response): Promise<SalesAnswer> {
  const body: unknown = await response.json()
  if (
    !isObject(body) ||
    !count(body.accepted) ||
    !count(body.duplicates) ||
    !Array.isArray(body.rejected) ||
    !body.rejected.every(
      (entry) => isObject(entry) && typeof entry.id === 'string' && typeof entry.message === 'string',
    ) ||
    (body.generation !== undefined && typeof body.generation !== 'string')
  )
    throw new Error('not a sales answer')
  return body as unknown as SalesAnswer
}

/**
 * Whether an answer accounts for every sale of the batch sent (`ids`): each stored, a duplicate, or
 * rejected by its id, once. Anything else is no acknowledgement: the device keeps the batch and sends
 * it again under the same key.
 */
export function accountsFor(ids: readonly string[], answer: SalesAnswer): boolean {
  const sent = new Set(ids)
  const rejected = new Set(answer.rejected.map((entry) => entry.id))
  return (
    answer.accepted + answer.duplicates + answer.rejected.length === ids.length &&
    rejected.size === answer.rejected.length &&
    [...rejected].every((id) => sent.has(id))
  )
}

/** A 2xx's body read as pairing's answer; throws when it is not one. */
async function readPairAnswer(response: Response): Promise<PairAnswer> {
  const body: unknown = await response.json()
  if (
    !isObject(body) ||
    !Number.isSafeInteger(body.deviceId) ||
    !Number.isSafeInteger(body.storeId) ||
    typeof body.key !== 'string' ||
    body.key.length === 0
  )
    throw new Error('not a pairing answer')
  return body as unknown as PairAnswer
}

/**
 * Whether calls to `server` would carry the pairing code and the device's key readable by anyone on the
 * way: plain http to another machine (this machine's own addresses never leave it).
 */
export function isPlainHttpElsewhere(server: string): boolean {
  const url = new URL(server)
  if (url.protocol !== 'http:') return false
  const host = url.hostname.replace(/^\[|\]$/g, '')
  return !(
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
  )
}

/** What the device says of such an address: refused without `--allow-http`, a warning with it. */
export const plainHttpWarning = (server: string) =>
  `${server} is plain http to another machine: the pairing code and the device's key travel readable by anyone on the network, who could then post sales as this device. Use https; --allow-http goes ahead anyway`

const retryable = (status: number) => status === 409 || status === 429 || status >= 500

export class DeviceApi {
  constructor(
    private readonly server: string,
    private readonly options: { fetch?: Fetch; timeoutMs?: number } = {},
  ) {}

  private async call<T>(
    path: string,
    init: { body: string; headers?: Record<string, string> },
    read: (response: Response) => Promise<T>,
  ): Promise<Outcome<T>> {
    const fetch = this.options.fetch ?? globalThis.fetch
    let response: Response
    try {
      response = await fetch(new URL(`/api/v0${path}`, this.server).href, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...init.headers },
        body: init.body,
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
      })
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code
      return { kind: 'retry', reason: cause ?? (error as Error).name ?? String(error) }
    }
    if (response.ok) {
      try {
        return { kind: 'ok', value: await read(response) }
      } catch (error) {
        // The answer was cut off: the call may or may not have been done, so it is tried again.
        return { kind: 'retry', reason: `unreadable answer (${(error as Error).message})` }
      }
    }
    const message = await messageOf(response)
    if (retryable(response.status)) {
      const after = retryAfterMs(response.headers.get('retry-after'))
      return {
        kind: 'retry',
        reason: `${response.status} ${message}`,
        ...(after === undefined ? {} : { retryAfterMs: after }),
      }
    }
    return { kind: 'stop', status: response.status, message }
  }

  pair(code: string) {
    return this.call('/device/pair', { body: JSON.stringify({ code }) }, readPairAnswer)
  }

  sendSales(key: string, idempotencyKey: string, body: string) {
    return this.call(
      '/device/sales',
      { body, headers: { authorization: `Bearer ${key}`, 'idempotency-key': idempotencyKey } },
      readSalesAnswer,
    )
  }

  /** `store`: what the heartbeat also says of the store (its machines, its terminal: docs/product.md §14). */
  heartbeat(key: string, pending: number, sentAt: string, store: Record<string, unknown> = {}) {
    return this.call(
      '/device/heartbeat',
      { body: JSON.stringify({ ...store, pending, sentAt }), headers: { authorization: `Bearer ${key}` } },
      async (response) => {
        await response.arrayBuffer()
        return { generation: response.headers.get(generationHeader) ?? undefined }
      },
    )
  }
}

/**
 * The wait before attempt `attempt + 1`: exponential from `baseMs` up to `maxMs`, with jitter (half
 * fixed, half random, so devices that failed together do not come back together), and never shorter
 * than what the server asked for in Retry-After.
 */
export function backoffMs(
  attempt: number,
  { baseMs, maxMs }: { baseMs: number; maxMs: number },
  retryAfter?: number,
  random = Math.random,
) {
  return backoff(attempt, { firstMs: baseMs, maxMs, jitter: true }, retryAfter, random)
}
