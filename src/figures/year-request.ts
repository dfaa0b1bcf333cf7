// The one request of a store's year of sales (the usage answer, docs/product.md §5), which the year
// query (year-query.ts) makes, and which a sign-in makes early: the first usage answer of a sign-in is
// asked for as soon as the store it opens is known, rather than after the sales screen's code has
// loaded and run. Our server names that store in its sign-in answer (`firstStoreId`), so the answer
// downloads while the profile is fetched; any other server's profile names it one round trip later,
// still before the screen's code runs. On 3G the figures come about half a second sooner. The year
// query takes the answer over instead of asking again (decision 31).
// Apart from year-query.ts so that the login screen's code does not load the query library.
import { usageAccept } from '../../contract/usage-compact-type.ts'
import { request } from '../lib/api.ts'
import { isSessionCurrent, sessionGeneration } from '../lib/tokens.ts'
import { currentPeriod } from './clock.ts'

/** The address of a store's usage answer of one UTC year. */
export const usagePath = (storeId: number, year: number) => `/api/v0/store/${storeId}/usage?year=${year}`

/**
 * The request of a store's usage answer of one UTC year: asking for our compact encoding first
 * (`usageAccept`, docs/architecture.md "The compact usage encoding"), revalidating the answer the
 * caller keeps when it names its ETag.
 */
export const requestYear = (
  storeId: number,
  year: number,
  init?: { signal?: AbortSignal; ifNoneMatch?: string | undefined },
) => request(usagePath(storeId, year), { ...init, accept: usageAccept })

/** An answer asked for early is taken over only this soon after it was asked for; then it is dropped. */
const keptForMs = 60_000

interface Early {
  path: string
  response: Promise<Response>
  startedIn: number
  askedAt: number
  /** Stops its download when it is dropped. */
  controller: AbortController
}

let early: Early | undefined

/**
 * Drops the answer asked for early, if any, and stops its download (the session's end calls it,
 * features/auth/session.ts).
 */
export function dropUsageEarly() {
  early?.controller.abort()
  early = undefined
}

/**
 * Asks now for the usage answer a sign-in's first screen needs, for the usage query to take over (one
 * at a time): the store's, of this year (UTC, the clock's), which the sales screen opens when its
 * address names no period (tests/web/clock.test.tsx checks that they agree at the turn of the year).
 */
export function askUsageEarly(storeId: number, year = currentPeriod().year) {
  const path = usagePath(storeId, year)
  if (early?.path === path && isSessionCurrent(early.startedIn)) return
  // Another store's answer (the sign-in answer named another than the profile) would only compete for the line.
  dropUsageEarly()
  const controller = new AbortController()
  const response = requestYear(storeId, year, { signal: controller.signal })
  // Whoever takes it over sees a failure; until then, it is no unhandled rejection.
  response.catch(() => {})
  const asked: Early = { path, response, startedIn: sessionGeneration(), askedAt: Date.now(), controller }
  early = asked
  // Not taken over in time (the owner went elsewhere, or the figures were kept): dropped.
  setTimeout(() => {
    if (early === asked) dropUsageEarly()
  }, keptForMs)
}

/**
 * The answer asked for early for this store and year, once: only in the session it was asked in and
 * within a minute of it; undefined otherwise (then the query asks itself).
 */
export function takeUsageEarly(storeId: number, year: number): Promise<Response> | undefined {
  const taken = early
  if (!taken || taken.path !== usagePath(storeId, year)) return undefined
  early = undefined
  if (isSessionCurrent(taken.startedIn) && Date.now() - taken.askedAt <= keptForMs) return taken.response
  taken.controller.abort()
  return undefined
}
