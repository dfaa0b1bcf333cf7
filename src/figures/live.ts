// The live loop (docs/product.md §2.3, decisions 83-88): a store-year on screen, once loaded from a
// server that says its revision, follows its changes. One tab of the browser asks (it holds the
// store-year's Web Lock) with a long poll of the changes call through the app's fetch wrapper, merges
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
import { HttpError, requestJson } from '../lib/api.ts'
import { isSessionCurrent, sessionGeneration } from '../lib/tokens.ts'
import { type ChangesAnswer, mergeChanges } from './changes.ts'
import { liveFailing, type Usage, usageKeys, usageQuery } from './year-query.ts'

/** How long the server may hold a call (seconds), and how long this side waits for its answer (ms). */
export const liveWait = 25
const answerWithinMs = 40_000

/** The address of the changes call. */
export const changesPath = (storeId: number, year: number, after: number) =>
  `/api/v0/store/${storeId}/usage/changes?year=${year}&after=${after}&wait=${liveWait}`

/** What one tab tells the others: a store-year's figures as it now keeps them, or (no `usage`) that its call failed. */
interface Shared {
  key: QueryKey
  usage?: Usage
  at?: number
}

let channel: BroadcastChannel | undefined

function share(client: QueryClient, key: QueryKey, failed?: boolean) {
  const state = client.getQueryState<Usage>(key)
  if (failed) liveFailing.add(hashKey(key))
  channel?.postMessage({ key, usage: failed ? undefined : state?.data, at: state?.dataUpdatedAt } as Shared)
}

/** Takes in what the tab that asks learned: newer figures of a store-year this tab keeps, while its session is this tab's. */
function listen(client: QueryClient) {
  if (channel || typeof BroadcastChannel !== 'function') return
  channel = new BroadcastChannel('live-figures')
  channel.onmessage = ({ data: { key, usage, at } }: MessageEvent<Shared>) => {
    if (!isSessionCurrent(sessionGeneration())) return
    if (!usage) return void liveFailing.add(hashKey(key))
    const kept = client.getQueryData<Usage>(key)
    if (kept && (kept.rev ?? -1) <= (usage.rev ?? -1)) {
      liveFailing.delete(hashKey(key))
      client.setQueryData(key, usage, { updatedAt: at })
    }
  }
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
    const after = client.getQueryData<Usage>(key)?.rev
    if (after === undefined) return
    // A call whose answer never comes (a line that dropped it silently) is given up and asked again.
    const call = new AbortController()
    const stop = () => call.abort()
    const timer = setTimeout(stop, answerWithinMs)
    signal.addEventListener('abort', stop)
    try {
      const answer = await requestJson<ChangesAnswer>(changesPath(storeId, year, after), {
        signal: call.signal,
        // The bearer is all it needs: the cookies (the tokens again) would cost every held call 0.3 kB.
        credentials: 'omit',
      })
      if (signal.aborted || !isSessionCurrent(startedIn)) return
      failures = 0
      liveFailing.delete(hashKey(key))
      const kept = client.getQueryData<Usage>(key)
      const merged = kept ? mergeChanges(kept.buckets, kept.rev ?? -1, after, answer) : 'stale'
      if (merged === 'stale') continue
      if (merged === 'refetch') await client.fetchQuery({ ...usageQuery(storeId, year), staleTime: 0 })
      else
        client.setQueryData<Usage>(
          key,
          merged === 'same' ? kept : { buckets: merged, etag: null, rev: answer.rev },
        )
      share(client, key)
    } catch (error) {
      // Offline, it waits for the line (`online` asks again); the kept figures keep their "as of".
      if (signal.aborted || !isSessionCurrent(startedIn) || !onlineManager.isOnline()) return
      const absent = error instanceof HttpError && error.status === 404
      // Not our server's call (another provider), or failing again: the year query fetches as before.
      if (absent || failures > 0) share(client, key, true)
      if (absent) return
      await pause(Math.min(2000 * 2 ** failures++, 300_000), signal)
    } finally {
      clearTimeout(timer)
      signal.removeEventListener('abort', stop)
    }
  }
}

/**
 * Follows a store-year's changes while this tab shows it, until the returned function stops it: asks
 * while the tab is visible, online and holds the store-year's lock (one tab of the browser asks), and
 * afresh on every `visibilitychange` and change of the line (`online`; `offline` ends a held call at once).
 */
export function follow(client: QueryClient, storeId: number, year: number) {
  listen(client)
  let round: AbortController | undefined
  const start = () => {
    round?.abort()
    const mine = new AbortController()
    round = mine
    if (document.visibilityState === 'hidden' || !onlineManager.isOnline()) return
    const run = () => poll(client, storeId, year, mine.signal)
    const { locks } = navigator
    ;(locks && channel
      ? locks.request(`live-figures ${storeId} ${year}`, { signal: mine.signal }, run)
      : run()
    ).catch(() => {})
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
