// This browser's push subscription (docs/product.md decision 95): asked for only when the user presses
// `알림 받기` on the alerts screen, and sent to the server again on every start while the permission is
// granted (browsers drop subscriptions silently; the server forgets one when its sign-in ends). A
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

/** Subscribes (or keeps the subscription made for the server's current key) and sends it to the server. */
async function subscribeAndSend(): Promise<PushSubscription> {
  const { key } = await requestJson<PushKeyAnswer>('/api/v0/push/key')
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
  if (permission === 'granted') await subscribeAndSend()
  return permission
}

/** On every start of the signed-in app: sends the subscription again while the permission is granted. */
export async function resendSubscription(): Promise<void> {
  if (pushSupport() !== 'supported' || Notification.permission !== 'granted') return
  await subscribeAndSend()
}

/** Whether this browser holds a subscription now. */
export async function isSubscribed(): Promise<boolean> {
  if (pushSupport() !== 'supported') return false
  return (await (await registration()).pushManager.getSubscription()) !== null
}

export const sendTestAlert = () => requestJson<PushTestAnswer>('/api/v0/push/test', { method: 'POST' })
