// A browser whose service worker holds a push subscription, for the tests of a session's end.
import { vi } from 'vitest'

/** Stands in for `navigator.serviceWorker` with a registration holding a subscription; answers its `unsubscribe`. */
export function browserWithSubscription() {
  const unsubscribe = vi.fn(async () => true)
  const registration = { pushManager: { getSubscription: async () => ({ unsubscribe }) } }
  vi.stubGlobal(
    'navigator',
    Object.assign(Object.create(navigator), { serviceWorker: { getRegistration: async () => registration } }),
  )
  return unsubscribe
}
