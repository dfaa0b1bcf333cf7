// Whose alerts come to this browser (docs/product.md decision 167): the subscription is sent again at
// every start only for a user who chose alerts here (`알림 받기`), never for whoever signs in next where
// notifications were once allowed; what the browser keeps of that choice after a logout names no one.
import Cookies from 'js-cookie'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { resendSubscription, turnOnAlerts } from '../../../src/features/alerts/push-subscription.ts'
import { useUserStore, wipeDevice } from '../../../src/lib/session-state.ts'
import { adoptSignIn } from '../../../src/lib/tokens.ts'
import { fakeServer, json } from '../fake-server.ts'

const serverKey = `B${'A'.repeat(86)}`
const serverKeyBytes = Uint8Array.from(atob(serverKey.replace(/-/g, '+').replace(/_/g, '/')), (c) =>
  c.charCodeAt(0),
).buffer
const owner = { id: 1, name: '김사장', phone: '01012345678', image: null }
/** The mark the server gives each user with its key (GET /push/key): opaque, one per user. */
const marks: Record<number, string> = { 1: 'mark-of-the-owner', 2: 'mark-of-the-staff' }

/** A browser with a service worker and push, notifications allowed; `held` is its subscription. */
function pushBrowser(held: boolean) {
  let subscription: { endpoint: string; unsubscribe: () => Promise<boolean> } | null = null
  let made = 0
  const make = () => {
    made += 1
    const endpoint = `https://fcm.googleapis.com/fcm/send/browser-${made}`
    const current = {
      endpoint,
      options: { applicationServerKey: serverKeyBytes },
      toJSON: () => ({ endpoint, expirationTime: null, keys: { p256dh: 'p', auth: 'a' } }),
      unsubscribe: vi.fn(async () => {
        subscription = null
        return true
      }),
    }
    subscription = current
    return current
  }
  if (held) make()
  const subscribe = vi.fn(async () => make())
  const registration = { pushManager: { getSubscription: async () => subscription, subscribe } }
  vi.stubGlobal(
    'navigator',
    Object.create(navigator, {
      userAgent: { value: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/140' },
      maxTouchPoints: { value: 0 },
      serviceWorker: {
        value: { ready: Promise.resolve(registration), getRegistration: async () => registration },
      },
    }),
  )
  vi.stubGlobal('PushManager', class {})
  vi.stubGlobal(
    'Notification',
    Object.assign(class {}, { permission: 'granted', requestPermission: async () => 'granted' }),
  )
  return { subscribe, held: () => subscription }
}

/** The server, as the user `userId` is signed in: the key with that user's mark, and the subscription call. */
function serverFor(userId: number) {
  return fakeServer({
    'GET /api/v0/push/key': () => json(200, { key: serverKey, mark: marks[userId] }),
    'PUT /api/v0/push/subscription': () => new Response(null, { status: 204 }),
    'DELETE /api/v0/user/sign': () => new Response(null, { status: 204 }),
  })
}
const signInCookies = () => {
  Cookies.set('accessToken', 'a1', { path: '/' })
  Cookies.set('refreshToken', 'r1', { path: '/' })
  Cookies.set('signInId', 'sign-in', { path: '/' })
  adoptSignIn()
}

beforeEach(() => signInCookies())

describe('the subscription sent again at start', () => {
  it('is not made for a user who never chose alerts here, though the permission stays granted', async () => {
    const browser = pushBrowser(false)
    // The staff member chose alerts on the shop's screen, and logged out.
    serverFor(2)
    await turnOnAlerts()
    await wipeDevice()
    await vi.waitFor(() => expect(browser.held()).toBeNull())
    // The owner signs in on the same screen: no subscription is made or sent for them.
    signInCookies()
    const server = serverFor(1)
    await resendSubscription()
    expect(browser.subscribe).toHaveBeenCalledTimes(1)
    expect(server.count('PUT /api/v0/push/subscription')).toBe(0)
    expect(browser.held()).toBeNull()
  })

  it('is made and sent again for the user who chose alerts here, after their logout too (iOS drops it silently)', async () => {
    const browser = pushBrowser(false)
    serverFor(1)
    await turnOnAlerts()
    useUserStore.setState({ user: owner, isLoggedIn: true })
    await wipeDevice()
    // What stays on the device after the logout tells nothing of the user.
    const kept = JSON.stringify({ ...localStorage })
    for (const trace of [owner.name, owner.phone, '"id":1']) expect(kept).not.toContain(trace)
    signInCookies()
    const server = serverFor(1)
    await resendSubscription()
    expect(browser.subscribe).toHaveBeenCalledTimes(2)
    expect(server.count('PUT /api/v0/push/subscription')).toBe(1)
  })

  it('a subscription the browser still holds, of someone who did not choose it here, ends and is not sent', async () => {
    const browser = pushBrowser(false)
    serverFor(1)
    await turnOnAlerts()
    // The browser still holds a subscription (a logout whose unsubscribe never ran), and another signs in.
    const held = browser.held()
    const server = serverFor(2)
    await resendSubscription()
    expect(server.count('PUT /api/v0/push/subscription')).toBe(0)
    expect(held?.unsubscribe).toHaveBeenCalledTimes(1)
    expect(browser.held()).toBeNull()
  })

  it('a subscription made before the browser remembered choices is kept for the user signed in at the update', async () => {
    const browser = pushBrowser(true)
    let server = serverFor(1)
    await resendSubscription()
    expect(server.count('PUT /api/v0/push/subscription')).toBe(1)
    expect(browser.subscribe).not.toHaveBeenCalled()
    // Remembered as that user's choice: after a logout, their next sign-in subscribes again.
    await wipeDevice()
    signInCookies()
    server = serverFor(1)
    await resendSubscription()
    expect(server.count('PUT /api/v0/push/subscription')).toBe(1)
    expect(browser.subscribe).toHaveBeenCalledTimes(1)
  })

  it('asks the server nothing where nobody chose alerts and the browser holds no subscription', async () => {
    pushBrowser(false)
    localStorage.setItem('laundry-alert-choices', '[]')
    const server = serverFor(1)
    await resendSubscription()
    expect(server.calls).toHaveLength(0)
  })
})
