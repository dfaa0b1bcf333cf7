// The one fetch wrapper. Every call carries the stored access token as a bearer header; a 401 is met
// with one refresh of the tokens and one retry of the request. Concurrent 401s share one refresh, and
// tabs take turns (Web Locks), so a refresh token is never spent twice.
import type { ErrorBody, SignAnswer } from '../../contract/api.ts'
import { apiUrl } from '../config.ts'
import { page } from './page.ts'
import { getAccessToken, getRefreshToken, setTokens } from './tokens.ts'

export const refreshFailedMessage = 'Failed to obtain new access token.'
export const offlineMessage = '인터넷에 연결되어 있지 않습니다. 연결을 확인한 뒤 다시 시도해 주세요.'

/** The server answered with an error status; `message` is its Korean text. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
    this.name = 'ApiError'
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

let sessionEnded: () => void = () => {}
/** Who to tell when a request finds the sign-in gone; called once per such request. */
export function onSessionEnded(handler: () => void) {
  sessionEnded = handler
}

export interface ApiRequest {
  method?: 'GET' | 'PUT' | 'POST' | 'DELETE'
  body?: unknown
  /** Send the access token and refresh on 401 (true unless the call is a public one). */
  auth?: boolean
  signal?: AbortSignal
  keepalive?: boolean
}

async function send(path: string, init: ApiRequest, access: string | undefined): Promise<Response> {
  const headers: Record<string, string> = {}
  if (init.body !== undefined) headers['content-type'] = 'application/json'
  if (access) headers.authorization = `Bearer ${access}`
  try {
    return await fetch(apiUrl(path), {
      method: init.method ?? 'GET',
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: init.signal,
      keepalive: init.keepalive,
    })
  } catch (error) {
    if (init.signal?.aborted) throw error
    throw new OfflineError()
  }
}

async function errorOf(response: Response): Promise<ApiError> {
  let message = `서버가 요청을 처리하지 못했습니다 (${response.status}).`
  try {
    const body = (await response.json()) as Partial<ErrorBody>
    if (typeof body.message === 'string' && body.message) message = body.message
  } catch {
    // Not our JSON (a proxy's error page, say): keep the generic text.
  }
  return new ApiError(response.status, message)
}

let pendingRefresh: Promise<string> | null = null

/** Resolves to a fresh access token; every caller during one refresh gets the same one. */
export function refreshAccessToken(stale: string | undefined): Promise<string> {
  pendingRefresh ??= oneTabAtATime(() => exchange(stale)).finally(() => {
    pendingRefresh = null
  })
  return pendingRefresh
}

function oneTabAtATime<T>(task: () => Promise<T>): Promise<T> {
  return typeof navigator !== 'undefined' && navigator.locks
    ? navigator.locks.request('token-refresh', task)
    : task()
}

async function exchange(stale: string | undefined): Promise<string> {
  // Another tab may have refreshed while this one waited for its turn.
  const current = getAccessToken()
  if (current && current !== stale) return current
  const refresh = getRefreshToken()
  if (!refresh) throw new SessionEndedError()
  const response = await send(`/api/v0/user/sign?token=${encodeURIComponent(refresh)}`, {}, undefined)
  if (response.status === 400 || response.status === 401 || response.status === 403)
    throw new SessionEndedError()
  if (!response.ok) throw await errorOf(response)
  const text = await response.text()
  if (!text.trim()) {
    // SPEC.md 4: when the exchange returns nothing, the page reloads.
    page.reload()
    throw new Error(refreshFailedMessage)
  }
  let token: Partial<SignAnswer['token']> | undefined
  try {
    token = (JSON.parse(text) as Partial<SignAnswer>).token
  } catch {
    token = undefined
  }
  if (!token?.access || !token.refresh) throw new SessionEndedError()
  setTokens({ access: token.access, refresh: token.refresh })
  return token.access
}

/** Sends a request; resolves to a successful response, or rejects with ApiError, OfflineError or SessionEndedError. */
export async function request(path: string, init: ApiRequest = {}): Promise<Response> {
  const authorized = init.auth !== false
  const access = authorized ? getAccessToken() : undefined
  let response = await send(path, init, access)
  if (response.status === 401 && authorized) {
    let fresh: string
    try {
      fresh = await refreshAccessToken(access)
    } catch (error) {
      console.error(error)
      if (error instanceof SessionEndedError) sessionEnded()
      throw error
    }
    response = await send(path, init, fresh)
    // Retried once; a new token that is refused too means the sign-in is gone.
    if (response.status === 401) {
      sessionEnded()
      throw new SessionEndedError()
    }
  }
  if (!response.ok) throw await errorOf(response)
  return response
}

/** The JSON answer of a request, or undefined when the answer is empty. */
export async function requestJson<T>(path: string, init: ApiRequest = {}): Promise<T | undefined> {
  const text = await (await request(path, init)).text()
  return text.trim() ? (JSON.parse(text) as T) : undefined
}
