// The one fetch wrapper. Every call carries the stored access token as a bearer header; a 401 is met
// with one refresh of the tokens and one retry of the request. Concurrent 401s share one refresh, and
// tabs take turns (Web Locks), so a refresh token is never spent twice. A signed-in request belongs
// to the session it started in (tokens.ts): when that session ends on this device, the request is
// aborted, and an answer that still arrives is dropped (StaleSessionError), never taken in.
import type { ErrorBody, SignAnswer } from '../../contract/api.ts'
import { apiUrl } from '../config.ts'
import { type EmptyAnswerRule, reloadFor } from './page.ts'
import {
  getAccessToken,
  getRefreshRetryKey,
  getRefreshToken,
  isCurrentGeneration,
  isOtherSignIn,
  isOwnSignIn,
  sessionGeneration,
  sessionSignal,
  setTokens,
} from './tokens.ts'

export const refreshFailedMessage = 'Failed to obtain new access token.'
const offlineMessage = '인터넷에 연결되어 있지 않습니다. 연결을 확인한 뒤 다시 시도해 주세요.'

/** The server answered with an error status; `message` is its Korean text (or a generic one). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The answer's Retry-After header, as sent (src/live/transport.ts honours it). */
    readonly retryAfter: string | null = null,
  ) {
    super(message)
    this.name = 'HttpError'
  }
}

/** No answer at all (offline, or the server unreachable). Not a reason to end the session. */
export class OfflineError extends Error {
  constructor() {
    super(offlineMessage)
    this.name = 'OfflineError'
  }
}

/** The sign-in is gone: no refresh token, or the server refused it. The device must sign out. */
export class SessionEndedError extends Error {
  constructor() {
    super(refreshFailedMessage)
    this.name = 'SessionEndedError'
  }
}

/** The session a request belonged to ended on this device while it ran: its answer is dropped. */
export class StaleSessionError extends Error {
  constructor() {
    super('session ended')
  }
}

export const emptyAnswerMessage = '서버가 빈 응답을 보냈습니다. 잠시 후 다시 시도해 주세요.'

/**
 * The server answered nothing where an answer is due (a call's body is empty). The product's rule for
 * it is one: the page reloads (docs/product.md §4.6), at most once a minute per call, and otherwise
 * the owner is shown `emptyAnswerMessage`. Whoever catches it calls `reloadForEmptyAnswer` and shows
 * the message only when that returns false.
 */
export class EmptyAnswerError extends Error {
  constructor(readonly call: EmptyAnswerRule) {
    super(emptyAnswerMessage)
    this.name = 'EmptyAnswerError'
  }
}

/** The one handler of an empty answer: reloads the page for its call (true), unless that call already did within the minute (false). */
export const reloadForEmptyAnswer = (error: EmptyAnswerError) => reloadFor(error.call)

/** The calls whose empty answer reloads the page, by method and path. */
const emptyAnswerCalls: Record<string, EmptyAnswerRule> = {
  'PUT /api/v0/user/phone': 'empty:code',
  'POST /api/v0/user/sign': 'empty:sign-in',
  'GET /api/v0/user': 'empty:profile',
  'GET /api/v0/user/sign': 'empty:token',
}

/** The address of the refresh and logout calls: the sign endpoint with the refresh token, and nothing else (proxies log it). */
export const refreshTokenPath = (refreshToken: string) =>
  `/api/v0/user/sign?token=${encodeURIComponent(refreshToken)}`

let storeRefused: (storeId: number) => void = () => {}
/**
 * Who to tell when the server refuses a signed-in call about a store (403): the user may have lost it
 * (features/auth/store-lost.ts). Returns the function that stops telling.
 */
export function onStoreRefused(handler: (storeId: number) => void) {
  storeRefused = handler
  return () => {
    if (storeRefused === handler) storeRefused = () => {}
  }
}

let sessionEnded: () => void = () => {}
/** Who to tell when a request finds the sign-in gone; called once per such request. */
export function onSessionEnded(handler: () => void) {
  sessionEnded = handler
}

export interface ApiRequest {
  method?: 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE'
  body?: unknown
  /** Send the access token and refresh on 401 (true unless the call is a public one). */
  auth?: boolean
  signal?: AbortSignal
  keepalive?: boolean
  /** An ETag of the answer the caller keeps: sent as If-None-Match, and a 304 answer is a success. */
  ifNoneMatch?: string
  /** The Accept header, for a call whose answer comes in more than one form (the usage answer). */
  accept?: string
  /** 'omit': no cookies (a call the bearer alone authorizes, asked often: the live changes call). */
  credentials?: RequestCredentials
}

/**
 * One fetch. `session` is the signal of the session the request belongs to (signed-in calls and the
 * token exchange); public calls, such as the logout call itself, belong to none and are not aborted.
 */
async function send(
  path: string,
  init: ApiRequest,
  access: string | undefined,
  session?: AbortSignal,
): Promise<Response> {
  const headers: Record<string, string> = {}
  if (init.body !== undefined) headers['content-type'] = 'application/json'
  if (access) headers.authorization = `Bearer ${access}`
  if (init.ifNoneMatch) headers['if-none-match'] = init.ifNoneMatch
  if (init.accept) headers.accept = init.accept
  try {
    return await fetch(apiUrl(path), {
      method: init.method ?? 'GET',
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      // Both signals where the browser can combine them (AbortSignal.any); else the session's, which a
      // caller's own abort then does not stop (its answer is still dropped by whoever asked).
      signal:
        session && init.signal && AbortSignal.any
          ? AbortSignal.any([init.signal, session])
          : (session ?? init.signal),
      keepalive: init.keepalive,
      credentials: init.credentials,
    })
  } catch (error) {
    if (session?.aborted) throw new StaleSessionError()
    if (init.signal?.aborted) throw error
    throw new OfflineError()
  }
}

async function errorOf(response: Response): Promise<HttpError> {
  let message = `서버가 요청을 처리하지 못했습니다 (${response.status}).`
  try {
    const body = (await response.json()) as Partial<ErrorBody>
    if (typeof body.message === 'string' && body.message) message = body.message
  } catch {
    // Not our JSON (a proxy's error page, say): keep the generic text.
  }
  return new HttpError(response.status, message, response.headers.get('retry-after'))
}

let pendingRefresh: { generation: number; token: Promise<string> } | null = null

/**
 * Resolves to a fresh access token; every caller of one session during one refresh gets the same one.
 * A refresh of a session that has ended is never shared with the next one.
 */
function refreshAccessToken(stale: string | undefined): Promise<string> {
  const generation = sessionGeneration()
  if (pendingRefresh?.generation !== generation) {
    const pending = {
      generation,
      token: oneTabAtATime(() => exchange(stale, generation)).finally(() => {
        if (pendingRefresh === pending) pendingRefresh = null
      }),
    }
    pendingRefresh = pending
  }
  return pendingRefresh.token
}

function oneTabAtATime<T>(task: () => Promise<T>): Promise<T> {
  return typeof navigator !== 'undefined' && navigator.locks
    ? navigator.locks.request('token-refresh', task)
    : task()
}

async function exchange(stale: string | undefined, generation: number): Promise<string> {
  // The session may have ended while this tab waited for its turn.
  if (!isCurrentGeneration(generation)) throw new StaleSessionError()
  // Another sign-in replaced this tab's while it waited: its tokens are not this tab's to use.
  if (isOtherSignIn()) throw new SessionEndedError()
  // Another tab may have refreshed while this one waited for its turn.
  const current = getAccessToken()
  if (current && current !== stale) return current
  const refresh = getRefreshToken()
  if (!refresh) throw new SessionEndedError()
  // The key stays with this refresh token until an answer brings the next one: an exchange whose
  // answer was lost is retried with the same key, and the server answers it again (tokens.ts). It
  // travels in its cookie, which the browser sends with the call (the API on the app's own origin),
  // never in the URL: proxies and APM tools log URLs, and a logged URL must be worth no more than a
  // logout. Made here if the stored token has none yet, so that it is in the cookie before the call.
  getRefreshRetryKey()
  const response = await send(refreshTokenPath(refresh), {}, undefined, sessionSignal())
  // (An answer for a session that ended meanwhile is dropped by request(), whatever it is.)
  if (response.status === 400 || response.status === 401 || response.status === 403)
    throw new SessionEndedError()
  if (!response.ok) throw await errorOf(response)
  const text = await response.text()
  if (!text.trim()) {
    if (!isCurrentGeneration(generation)) throw new StaleSessionError()
    const error = new EmptyAnswerError('empty:token')
    if (reloadForEmptyAnswer(error)) throw new Error(refreshFailedMessage)
    throw error
  }
  let token: Partial<SignAnswer['token']> | undefined
  try {
    token = (JSON.parse(text) as Partial<SignAnswer>).token
  } catch {
    token = undefined
  }
  if (!token?.access || !token.refresh) throw new SessionEndedError()
  // A logout in another tab removed the cookies while the exchange ran: writing the new pair would
  // sign this device in again behind that logout's back. (Replaced rather than removed, another tab
  // refreshed meanwhile: its pair stays. Replaced by another sign-in: this tab's sign-in is gone.)
  const stored = getRefreshToken()
  if (stored !== refresh) {
    const access = getAccessToken()
    if (isOwnSignIn() && access) return access
    throw new SessionEndedError()
  }
  if (!setTokens({ access: token.access, refresh: token.refresh }, generation)) throw new StaleSessionError()
  return token.access
}

/**
 * Sends a request; resolves to a successful response (or a 304 to `ifNoneMatch`), or rejects with
 * HttpError, OfflineError, SessionEndedError, EmptyAnswerError, or StaleSessionError when the session
 * the signed-in request started in ended on this device before its answer was in.
 */
export async function request(path: string, init: ApiRequest = {}): Promise<Response> {
  const authorized = init.auth !== false
  const generation = sessionGeneration()
  const session = authorized ? sessionSignal() : undefined
  /** Nothing of an ended session's answer goes further. */
  const stillCurrent = () => {
    if (authorized && !isCurrentGeneration(generation)) throw new StaleSessionError()
  }
  // The cookies hold another sign-in than this tab's (made in another tab): its tokens are never sent
  // for this tab's session, which is over.
  if (authorized && isOtherSignIn()) {
    sessionEnded()
    throw new SessionEndedError()
  }
  const access = authorized ? getAccessToken() : undefined
  let response = await send(path, init, access, session)
  stillCurrent()
  if (response.status === 401 && authorized) {
    let fresh: string
    try {
      fresh = await refreshAccessToken(access)
      stillCurrent()
    } catch (error) {
      // (The refresh belongs to this request's session: it is stale exactly when that session ended.)
      if (!isCurrentGeneration(generation)) throw new StaleSessionError()
      console.error(error)
      if (error instanceof SessionEndedError) sessionEnded()
      throw error
    }
    response = await send(path, init, fresh, session)
    stillCurrent()
    // Retried once; a new token that is refused too means the sign-in is gone.
    if (response.status === 401) {
      sessionEnded()
      throw new SessionEndedError()
    }
  }
  if (response.status === 304 && init.ifNoneMatch) return response
  const store = response.status === 403 && authorized && /^\/api\/v0\/store\/(\d+)\//.exec(path)?.[1]
  if (store) storeRefused(Number(store))
  if (!response.ok) throw await errorOf(response)
  return response
}

/** The JSON answer of a request; an empty one rejects with EmptyAnswerError. */
export async function requestJson<T>(path: string, init: ApiRequest = {}): Promise<T> {
  const generation = sessionGeneration()
  const text = await (await request(path, init)).text()
  if (init.auth !== false && !isCurrentGeneration(generation)) throw new StaleSessionError()
  if (text.trim()) return JSON.parse(text) as T
  const call = `${init.method ?? 'GET'} ${path.split('?')[0]}`
  throw new EmptyAnswerError(emptyAnswerCalls[call] ?? 'empty:other')
}
