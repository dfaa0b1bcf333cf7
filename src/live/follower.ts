// The live follower (docs/product.md §2.3, decisions 83-88): kept figures, once loaded from a server
// that says their revision, follow their changes, one held call after another (the list-then-watch
// loop of Kubernetes' reflector: the query lists, the follower watches after what it keeps). One tab of
// the browser asks (it holds the figures' Web Lock) and hands what it learns to the other tabs
// (BroadcastChannel), which only take it in. Only a visible tab asks, and none while offline; becoming
// visible or coming back online asks at once. A logout aborts the call (the session's signal) and
// nothing answered afterwards is written. When the call fails, the query fetches as before.
// Each consumer says what to ask and how to take in an answer (`Following`): the sales screen's year
// (src/figures/live.ts) and the stores overview (src/features/stores/overview-live.ts).
import { hashKey, onlineManager, type QueryClient, type QueryKey } from '@tanstack/react-query'
import { HttpError } from '../lib/api.ts'
import { isSessionCurrent, sessionGeneration } from '../lib/tokens.ts'
import { liveFailing } from './followed.ts'
import { askHeld, pauseAfter } from './transport.ts'

/** What taking in one answer did: whether what is kept changed (shared then), and whether to read on. */
export interface Taken {
  changed: boolean
  more: boolean
}

/** One held call: its address, and how to take in each of its answers (null: a comment, nothing new). */
export interface Ask<Answer> {
  path: string
  take(answer: Answer | null): Taken | Promise<Taken>
}

/** What one consumer follows. */
export interface Following<Answer> {
  /** The query whose kept data is followed (and shared with the other tabs under its key). */
  key: QueryKey
  /** The Web Lock one tab of the browser holds to ask. */
  lock: string
  /** The held call to make for what is kept now; null: nothing to follow. */
  ask(): Ask<Answer> | null
}

/** What one tab tells the others: the figures it now keeps under `key`, or (no `usage`) that its call failed. */
interface Shared {
  key: QueryKey
  usage?: { rev?: number; buckets?: unknown }
  at?: number
}

let channel: BroadcastChannel | undefined

/** Tells the other tabs what this one now keeps under `key`, or that its call failed. */
function share(client: QueryClient, key: QueryKey, failed?: boolean) {
  const state = client.getQueryState<Shared['usage']>(key)
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
    const state = client.getQueryState<Shared['usage']>(key)
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
 * After a failed held call: whether to stop (the call ended, offline, or no such call: 404), telling
 * the other tabs when the figures must be fetched as before; otherwise it waits before asking again.
 */
async function stopAfter(
  client: QueryClient,
  key: QueryKey,
  error: unknown,
  failures: number,
  signal: AbortSignal,
  startedIn: number,
): Promise<boolean> {
  // Offline, it waits for the line (`online` asks again); the kept figures keep their "as of".
  if (signal.aborted || !isSessionCurrent(startedIn) || !onlineManager.isOnline()) return true
  // Refused (removed, or the store's won amounts hidden: docs/product.md §15): the request's own hook
  // reads the profile again (features/auth/store-lost.ts), and the screen follows it without a reload.
  if (error instanceof HttpError && error.status === 403) return true
  const absent = error instanceof HttpError && error.status === 404
  // Not our server's call (another provider), or failing again: the query fetches as before.
  if (absent || failures > 0) share(client, key, true)
  if (absent) return true
  await pauseAfter(error, failures, signal)
  return false
}

/** Asks, one held call after another, until `signal` or the session ends. */
async function run<Answer>(client: QueryClient, following: Following<Answer>, signal: AbortSignal) {
  const { key } = following
  const startedIn = sessionGeneration()
  for (let failures = 0; !signal.aborted && isSessionCurrent(startedIn); ) {
    const ask = following.ask()
    if (!ask) return
    try {
      await askHeld<Answer>(ask.path, signal, async (answer) => {
        if (signal.aborted || !isSessionCurrent(startedIn)) return false
        failures = 0
        liveFailing.delete(hashKey(key))
        const { changed, more } = await ask.take(answer)
        if (changed) share(client, key)
        return more
      })
    } catch (error) {
      if (await stopAfter(client, key, error, failures++, signal, startedIn)) return
    }
  }
}

/**
 * Follows while this tab is visible, online and holds the Web Lock (one tab of the browser asks; the
 * others take in what it shares), afresh on every `visibilitychange` and change of the line (`offline`
 * ends a held call at once), until the returned function stops it.
 */
export function follow<Answer>(client: QueryClient, following: Following<Answer>) {
  listen(client)
  let round: AbortController | undefined
  const start = () => {
    round?.abort()
    const mine = new AbortController()
    round = mine
    if (document.visibilityState === 'hidden' || !onlineManager.isOnline()) return
    const go = () => run(client, following, mine.signal)
    const { locks } = navigator
    ;(locks && channel ? locks.request(following.lock, { signal: mine.signal }, go) : go()).catch(() => {})
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
