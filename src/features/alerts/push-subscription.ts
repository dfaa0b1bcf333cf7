// This browser's push subscription (docs/product.md decisions 95, 167): asked for only when the user
// presses `알림 받기` on the alerts screen, and sent to the server again on every start for a user who
// chose alerts on this browser (browsers drop subscriptions silently, iOS's too; the server forgets one
// when its sign-in ends), never for whoever else signs in where notifications were once allowed. A
// subscription made for another server key (the keys changed) is replaced.
import type { PushKeyAnswer, PushTestAnswer } from '../../../contract/api.ts'
import { request, requestJson } from '../../lib/api.ts'

/** What this browser can do about alerts. */
export type PushSupport = 'supported' | 'ios-browser' | 'unsupported'

export function pushSupport(): PushSupport {
  const standalone =
    window.matchMedia?.('(display-mode: standalone)').matches ||
    (navigator as Navigator & { standalone?: boolean }).standalone === true
  // iOS and iPadOS (which calls itself a Mac with touch) give push to home-screen apps only.
  const ios =
    /iPhone|iPad|iPod/.test(navigator.userAgent) ||
    (/Macintosh/.test(navigator.userAgent) && navigator.maxTouchPoints > 1)
  if (ios && !standalone) return 'ios-browser'
  return 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window
    ? 'supported'
    : 'unsupported'
}

const keyBytes = (key: string) => {
  const base64 = key.replace(/-/g, '+').replace(/_/g, '/')
  return Uint8Array.from(atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4)), (char) =>
    char.charCodeAt(0),
  )
}
const sameKey = (a: ArrayBuffer | null | undefined, b: Uint8Array) =>
  a !== null &&
  a !== undefined &&
  a.byteLength === b.length &&
  new Uint8Array(a).every((byte, i) => byte === b[i])

async function registration() {
  return navigator.serviceWorker.ready
}

/**
 * Local storage: the users who chose alerts on this browser, as the opaque marks the server gives each
 * user with its key (an HMAC of the user's id under a key of the server's). Kept through a logout, so
 * that the user's next sign-in here subscribes again; to the next person it names no one, and they
 * cannot tell whose a mark is. Absent until this version first starts (see resendSubscription).
 */
export const alertChoicesKey = 'laundry-alert-choices'
/** The marks kept at most (the most recent choices). */
const choicesKept = 20

function keptChoices(): string[] | null {
  try {
    const kept: unknown = JSON.parse(localStorage.getItem(alertChoicesKey) ?? 'null')
    if (kept === null) return null
    return Array.isArray(kept) ? kept.filter((mark): mark is string => typeof mark === 'string') : []
  } catch {
    return []
  }
}
function keepChoices(marks: string[]) {
  try {
    localStorage.setItem(alertChoicesKey, JSON.stringify(marks.slice(-choicesKept)))
  } catch {
    // Storage full or denied: not remembered; the user's subscription lasts until it is dropped, then
    // they press `알림 받기` again.
  }
}
const rememberChoice = (mark: string) =>
  keepChoices([...(keptChoices() ?? []).filter((kept) => kept !== mark), mark])

/** Subscribes (or keeps the subscription made for the server's current key) and sends it to the server. */
async function subscribeAndSend({ key }: PushKeyAnswer): Promise<PushSubscription> {
  const serverKey = keyBytes(key)
  const manager = (await registration()).pushManager
  let subscription = await manager.getSubscription()
  if (subscription && !sameKey(subscription.options.applicationServerKey, serverKey)) {
    await subscription.unsubscribe()
    subscription = null
  }
  subscription ??= await manager.subscribe({ userVisibleOnly: true, applicationServerKey: serverKey })
  await request('/api/v0/push/subscription', { method: 'PUT', body: subscription.toJSON() })
  return subscription
}

/** After `알림 받기`: asks for the permission, then subscribes. Answers the permission as it now is. */
export async function turnOnAlerts(): Promise<NotificationPermission> {
  const permission = await Notification.requestPermission()
  if (permission !== 'granted') return permission
  const answer = await requestJson<PushKeyAnswer>('/api/v0/push/key')
  // Remembered before subscribing: a subscription that fails now is made at the next start.
  rememberChoice(answer.mark)
  await subscribeAndSend(answer)
  return permission
}

/**
 * On every start of the signed-in app, while the permission is granted: for a user who chose alerts on
 * this browser, makes and sends the subscription again. For anyone else nothing is made or sent, and a
 * subscription the browser still holds (a logout whose unsubscribe never ran) ends: it is not theirs.
 * A subscription held when this browser first runs a version that remembers choices is the signed-in
 * user's (every logout ends it), and is remembered as their choice.
 */
export async function resendSubscription(): Promise<void> {
  if (pushSupport() !== 'supported' || Notification.permission !== 'granted') return
  const kept = keptChoices()
  const held = await (await registration()).pushManager.getSubscription()
  // Nobody chose alerts here: no call to the server at all.
  const mayHaveChosen = kept === null ? held !== null : kept.length > 0
  if (mayHaveChosen) {
    const answer = await requestJson<PushKeyAnswer>('/api/v0/push/key')
    if (kept === null || kept.includes(answer.mark)) {
      rememberChoice(answer.mark)
      await subscribeAndSend(answer)
      return
    }
  } else if (kept === null) {
    keepChoices([])
  }
  await held?.unsubscribe()
}

/** Whether this browser holds a subscription now. */
export async function isSubscribed(): Promise<boolean> {
  if (pushSupport() !== 'supported') return false
  return (await (await registration()).pushManager.getSubscription()) !== null
}

export const sendTestAlert = () => requestJson<PushTestAnswer>('/api/v0/push/test', { method: 'POST' })
