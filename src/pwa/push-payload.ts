// What a push shows and where its click goes (docs/product.md decision 94): pure, so the web tests
// check it; only the service worker's push handler (push-worker.ts) imports it. Every push shows a
// notification, a payload that cannot be read too (iOS revokes a subscription that receives pushes
// showing nothing).
import type { PushPayload } from '../../contract/push.ts'

export interface ShownNotification {
  title: string
  options: NotificationOptions & { data: { store?: number } }
}

const fallback = { title: '빨래방 매출', body: '새 알림이 있습니다. 눌러서 확인하세요.' }
const text = (value: unknown, max: number) =>
  typeof value === 'string' && value.trim() !== '' ? value.slice(0, max) : undefined

/** The notification for a push's text: the server's JSON of a `PushPayload`, read as untrusted. */
export function notificationOf(payload: string | undefined): ShownNotification {
  let message: { [key in keyof PushPayload]?: unknown } = {}
  try {
    const parsed: unknown = JSON.parse(payload ?? '')
    if (parsed && typeof parsed === 'object') message = parsed as typeof message
  } catch {
    // Shown all the same, with the fallback text.
  }
  const store =
    typeof message.store === 'number' && Number.isSafeInteger(message.store) && message.store > 0
      ? message.store
      : undefined
  const tag = text(message.tag, 64)
  return {
    title: text(message.title, 120) ?? fallback.title,
    options: {
      body: text(message.body, 400) ?? fallback.body,
      icon: '/pwa-192x192.png',
      badge: '/pwa-64x64.png',
      lang: 'ko',
      ...(tag ? { tag } : {}),
      data: store ? { store } : {},
    },
  }
}

/** The address a click opens: that store's sales screen, or the app's start. */
export function clickTarget(data: unknown, origin: string): string {
  const store = (data as { store?: unknown } | null)?.store
  const path =
    typeof store === 'number' && Number.isSafeInteger(store) && store > 0 ? `/?store=${store}` : '/'
  return new URL(path, origin).href
}
