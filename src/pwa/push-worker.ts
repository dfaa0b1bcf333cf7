// The service worker's push and notification-click handlers, built into `push-sw.js` (vite.config.ts)
// as a classic script that Workbox's generated worker imports (`importScripts`). Every push shows a
// notification (event.waitUntil(showNotification)); a click opens or focuses the store's sales screen.
import { clickTarget, notificationOf } from './push-payload.ts'

// The DOM library has no service-worker types: the little used here, declared.
interface WaitUntilEvent extends Event {
  waitUntil(promise: Promise<unknown>): void
}
interface PushMessageEvent extends WaitUntilEvent {
  data: { text(): string } | null
}
interface NotificationClickEvent extends WaitUntilEvent {
  notification: Notification
}
interface WindowClientLike {
  url: string
  focus(): Promise<WindowClientLike>
  navigate?(url: string): Promise<WindowClientLike | null>
}
interface WorkerScope {
  registration: ServiceWorkerRegistration
  location: Location
  clients: {
    matchAll(options: { type: 'window'; includeUncontrolled: boolean }): Promise<WindowClientLike[]>
    openWindow(url: string): Promise<WindowClientLike | null>
  }
  addEventListener(type: 'push', listener: (event: PushMessageEvent) => void): void
  addEventListener(type: 'notificationclick', listener: (event: NotificationClickEvent) => void): void
}

const worker = self as unknown as WorkerScope

worker.addEventListener('push', (event) => {
  let payload: string | undefined
  try {
    payload = event.data?.text()
  } catch {
    payload = undefined
  }
  const { title, options } = notificationOf(payload)
  event.waitUntil(worker.registration.showNotification(title, options))
})

/** Focuses a window already on the address, else takes an open window there, else opens one. */
async function openOrFocus(url: string) {
  const windows = await worker.clients.matchAll({ type: 'window', includeUncontrolled: true })
  const same = windows.find((client) => client.url === url)
  if (same) {
    await same.focus().catch(() => undefined)
    return
  }
  for (const client of windows) {
    const moved = await client.navigate?.(url).catch(() => null)
    if (moved) {
      await moved.focus().catch(() => undefined)
      return
    }
  }
  await worker.clients.openWindow(url)
}

worker.addEventListener('notificationclick', (event) => {
  event.notification.close()
  event.waitUntil(openOrFocus(clickTarget(event.notification.data, worker.location.origin)))
})
