// The live loop (docs/product.md §2.3, decisions 83-88): a store-year on screen, once loaded from a
// server that says its revision, follows its changes. One tab of the browser asks (it holds the
// store-year's Web Lock) with a held changes call through the app's fetch wrapper, asked as a stream
// (decision 133: each event of the open answer, or the one answer of a server that does not stream), merges
// each answer into the kept buckets (changes.ts) and hands the result to the other tabs
// (BroadcastChannel), which only take it in. Only a visible tab asks, and none while offline; becoming
// visible or coming back online asks at once. A logout aborts the call (the session's signal) and
// nothing answered afterwards is written. When the call fails, the year query fetches as before.
import {
  hashKey,
  onlineManager,
  type QueryClient,
  type QueryKey,
  useQueryClient,
} from '@tanstack/react-query'
import { useEffect } from 'react'
import { type ChangesAnswer, mergeChanges } from '../../domain/changes.ts'
import { HttpError, request } from '../lib/api.ts'
import { eventStream } from '../lib/event-stream.ts'
import { isSessionCurrent, sessionGeneration } from '../lib/tokens.ts'
import { liveFailing, type Usage, usageKeys, usageQuery } from './year-query.ts'

/** How long the server may hold a call (seconds), and how long this side waits for its answer (ms). */
export const liveWait = 25
const answerWithinMs = 40_000

/** The address of the changes call. */
export const changesPath = (storeId: number, year: number, after: number) =>
  `/api/v0/store/${storeId}/usage/changes?year=${year}&after=${after}&wait=${liveWait}`

/**
 * What one tab tells the others: a store-year's figures as it now keeps them (or the server's overview
 * of every store, followed the same way: src/features/stores/overview-live.ts), or (no `usage`) that its call failed.
 */
interface Shared {
  key: QueryKey
  usage?: Usage | { rev: number }
  at?: number
}

let channel: BroadcastChannel | undefined

/** Tells the other tabs what this one now keeps under `key`, or that its call failed. */
export function share(client: QueryClient, key: QueryKey, failed?: boolean) {
  const state = client.getQueryState<Usage>(key)
  if (failed) liveFailing.add(hashKey(key))
  channel?.postMessage({ key, usage: failed ? undefined : state?.data, at: state?.dataUpdatedAt } as Shared)
}

/**
 * Takes in what the tab that asks learned: newer figures this tab keeps (a store-year's by revision, the
 * overview's by time: its `rev` is a token, not a count), while its session is this tab's.
 */
function listen(client: QueryClient) {
  if (channel || typeof BroadcastChannel !== 'function') return
  channel = new BroadcastChannel('live-figures')
  channel.onmessage = ({ data: { key, usage, at } }: MessageEvent<Shared>) => {
    if (!isSessionCurrent(sessionGeneration())) return
    if (!usage) return void liveFailing.add(hashKey(key))
    const state = client.getQueryState<Usage>(key)
    const kept = state?.data
    if (
      kept &&
      ('buckets' in usage ? (kept.rev ?? -1) <= (usage.rev ?? -1) : (state.dataUpdatedAt ?? 0) <= (at ?? 0))
    ) {
      liveFailing.delete(hashKey(key))
      client.setQueryData(key, usage, { updatedAt: at })
    }
  }
}

/**
 * One held call through the app's fetch wrapper, asked as a stream (decision 133): `take` gets each
 * answer, the one answer of a server that does not stream or each event of one that does (null for
 * a comment: nothing new), and returns false to end it. Given up when nothing comes in time (a line
 * that dropped it silently), or when `signal` aborts.
 */
export async function askHeld<T>(
  path: string,
  signal: AbortSignal,
  take: (answer: T | null) => unknown,
): Promise<void> {
  const call = new AbortController()
  const stop = () => call.abort()
  let timer = 0
  const alive = () => {
    clearTimeout(timer)
    timer = setTimeout(stop, answerWithinMs)
  }
  alive()
  signal.addEventListener('abort', stop)
  try {
    // The bearer is all it needs: the cookies (the tokens again) would cost every held call 0.3 kB.
    const response = await request(path, {
      signal: call.signal,
      credentials: 'omit',
      accept: 'text/event-stream',
    })
    if (!response.headers.get('content-type')?.startsWith('text/event-stream'))
      return void (await take((await response.json()) as T))
    const reader = (response.body as ReadableStream<Uint8Array>).getReader()
    const text = new TextDecoder()
    const events = eventStream()
    for (let read = 0; ; read++) {
      const { done, value } = await reader.read()
      // Our server's stream always says something first: one that ends having said nothing is a failure.
      if (done) return read ? undefined : Promise.reject(Error('empty stream'))
      alive()
      for (const data of events(text.decode(value, { stream: true })))
        if ((await take(JSON.parse(data ?? 'null'))) === false) return stop()
    }
  } finally {
    clearTimeout(timer)
    signal.removeEventListener('abort', stop)
  }
}

/**
 * After a failed held call: whether to stop (the call ended, offline, or no such call: 404), telling
 * the other tabs when the figures must be fetched as before; otherwise it waits before asking again.
 */
export async function stopAfter(
  client: QueryClient,
  key: QueryKey,
  error: unknown,
  failures: number,
  signal: AbortSignal,
  startedIn: number,
): Promise<boolean> {
  // Offline, it waits for the line (`online` asks again); the kept figures keep their "as of".
  if (signal.aborted || !isSessionCurrent(startedIn) || !onlineManager.isOnline()) return true
  const absent = error instanceof HttpError && error.status === 404
  // Not our server's call (another provider), or failing again: the query fetches as before.
  if (absent || failures > 0) share(client, key, true)
  if (absent) return true
  await pause(Math.min(2000 * 2 ** failures, 300_000), signal)
  return false
}

const pause = (ms: number, signal: AbortSignal) =>
  new Promise((resolve) => {
    setTimeout(resolve, ms)
    signal.addEventListener('abort', resolve, { once: true })
  })

/** Asks for a store-year's changes, one held call after another, until `signal` or the session ends. */
async function poll(client: QueryClient, storeId: number, year: number, signal: AbortSignal) {
  const key = usageKeys.year(storeId, year)
  const startedIn = sessionGeneration()
  for (let failures = 0; !signal.aborted && isSessionCurrent(startedIn); ) {
    let after = client.getQueryData<Usage>(key)?.rev
    if (after === undefined) return
    try {
      await askHeld<ChangesAnswer>(changesPath(storeId, year, after), signal, async (answer) => {
        if (signal.aborted || !isSessionCurrent(startedIn)) return false
        failures = 0
        liveFailing.delete(hashKey(key))
        const kept = client.getQueryData<Usage>(key)
        // A comment: nothing new, the figures are current.
        const merged =
          kept && answer ? mergeChanges(kept.buckets, kept.rev ?? -1, after as number, answer) : 'same'
        // Another question than the kept revision's: asked again after it.
        if (merged === 'stale' || !kept) return false
        if (merged === 'refetch') await client.fetchQuery({ ...usageQuery(storeId, year), staleTime: 0 })
        else
          client.setQueryData<Usage>(
            key,
            merged === 'same' ? kept : { buckets: merged, etag: null, rev: (answer as ChangesAnswer).rev },
          )
        share(client, key)
        after = answer?.rev ?? after
        return merged !== 'refetch'
      })
    } catch (error) {
      if (await stopAfter(client, key, error, failures++, signal, startedIn)) return
    }
  }
}

/**
 * Follows a store-year's changes while this tab shows it, until the returned function stops it: asks
 * while the tab is visible, online and holds the store-year's lock (one tab of the browser asks), and
 * afresh on every `visibilitychange` and change of the line (`online`; `offline` ends a held call at once).
 */
export const follow = (client: QueryClient, storeId: number, year: number) =>
  followWith(client, `live-figures ${storeId} ${year}`, (signal) => poll(client, storeId, year, signal))

/**
 * Runs `poll` while this tab is visible, online and holds the Web Lock `lock` (one tab of the browser
 * asks; the others take in what it shares), afresh on every `visibilitychange` and change of the line,
 * until the returned function stops it.
 */
export function followWith(client: QueryClient, lock: string, poll: (signal: AbortSignal) => Promise<void>) {
  listen(client)
  let round: AbortController | undefined
  const start = () => {
    round?.abort()
    const mine = new AbortController()
    round = mine
    if (document.visibilityState === 'hidden' || !onlineManager.isOnline()) return
    const run = () => poll(mine.signal)
    const { locks } = navigator
    ;(locks && channel ? locks.request(lock, { signal: mine.signal }, run) : run()).catch(() => {})
  }
  start()
  // The query cache's own signal of the line (the browser's online and offline events).
  const unsubscribe = onlineManager.subscribe(start)
  document.addEventListener('visibilitychange', start)
  return () => {
    unsubscribe()
    document.removeEventListener('visibilitychange', start)
    round?.abort()
  }
}

/** Follows a store-year while the calling screen shows it, once its figures say their revision (`ready`). */
export function useLive(storeId: number, year: number, ready: boolean) {
  const client = useQueryClient()
  useEffect(() => (ready ? follow(client, storeId, year) : undefined), [client, storeId, year, ready])
}
