// The signed-in session as the device remembers it: the user (local storage `user-sotre`, version 0)
// and the stores with the selected one (`store-store`, version 1), beside the tokens in cookies.
// Several features read it, so it lives here rather than in any one of them.
import { create } from 'zustand'
import { persist } from 'zustand/middleware'
import type { ProfileAnswer, Store, User } from '../../contract/api.ts'
import { ApiError, OfflineError, requestJson, SessionEndedError } from './api.ts'
import { page } from './page.ts'
import { getRefreshToken, removeTokens } from './tokens.ts'

interface UserState {
  user: User | null
  isLoggedIn: boolean
  setUser(user: User): void
  setLoggedIn(isLoggedIn: boolean): void
  deleteValue(): void
}

export const useUserStore = create<UserState>()(
  persist(
    (set) => ({
      user: null,
      isLoggedIn: false,
      setUser: (user) => set({ user }),
      setLoggedIn: (isLoggedIn) => set({ isLoggedIn }),
      deleteValue: () => set({ user: null }),
    }),
    { name: 'user-sotre', version: 0 },
  ),
)

interface StoreState {
  store: Store | null
  stores: Store[]
  setStores(stores: Store[]): void
  setStore(store: Store): void
}

export const useStoreStore = create<StoreState>()(
  persist(
    (set) => ({
      store: null,
      stores: [],
      setStores: (stores) => set({ stores }),
      setStore: (store) => set({ store }),
    }),
    { name: 'store-store', version: 1 },
  ),
)

export const isLoggedIn = () => useUserStore.getState().isLoggedIn

/**
 * Takes in a fetched profile. At sign-in the first store is selected (SPEC.md 4); when the session is
 * refreshed the owner's selection is kept if the store is still theirs (DECISIONS.md).
 */
export function applyProfile(profile: ProfileAnswer, { keepSelection }: { keepSelection: boolean }) {
  const selected = useStoreStore.getState().store
  const kept = keepSelection ? profile.stores.find((store) => store.id === selected?.id) : undefined
  useUserStore.getState().setUser(profile.user)
  useStoreStore.setState({ stores: profile.stores, store: kept ?? profile.stores[0] ?? null })
  useUserStore.getState().setLoggedIn(true)
}

export const fetchProfile = () => requestJson<ProfileAnswer>('/api/v0/user')

/** The service worker's runtime caches (pictures); the precached app shell holds nobody's data. */
async function clearRuntimeCaches() {
  if (typeof caches === 'undefined') return
  const names = await caches.keys()
  await Promise.all(
    names.filter((name) => !name.startsWith('workbox-precache')).map((name) => caches.delete(name)),
  )
}

/**
 * Forgets everything user-specific on this device: tokens, the two persisted stores, the figures kept
 * for offline use and the cached pictures. A shared store-front device must not show the previous
 * user's sales. Nothing here needs the network, so it works offline too.
 */
export async function clearDevice() {
  removeTokens()
  useUserStore.setState({ user: null, isLoggedIn: false })
  useStoreStore.setState({ store: null, stores: [] })
  useUserStore.persist.clearStorage()
  useStoreStore.persist.clearStorage()
  // Loaded lazily: the login screen, which can end a session too, does not carry the query client.
  const { queryClient, persister, restored } = await import('./query-client.ts')
  await restored
  queryClient.clear()
  await Promise.all([persister.removeClient(), clearRuntimeCaches()])
}

/**
 * On start, a session the device remembers is checked against the server (SPEC.md 4). Offline, or
 * the server in trouble, it stays: only a server that says the sign-in is gone, or a user left with
 * no stores, ends it.
 */
export async function refreshSession(): Promise<void> {
  try {
    const profile = await fetchProfile()
    if (!profile) {
      page.reload()
      return
    }
    if (profile.stores.length === 0) {
      await clearDevice()
      page.reload()
      return
    }
    applyProfile(profile, { keepSelection: true })
  } catch (error) {
    if (error instanceof OfflineError || error instanceof SessionEndedError) return
    console.error(error)
    if (error instanceof ApiError && error.status < 500) {
      await clearDevice()
      page.reload()
    }
  }
}

/**
 * Follows a sign-out made in another tab (its cookies removed) within about 300 ms: through the
 * Cookie Store API's change event where the browser has one, else by looking every 300 ms.
 */
export function watchForSignOutElsewhere(signedOut: () => void): () => void {
  const check = () => {
    if (useUserStore.getState().isLoggedIn && !getRefreshToken()) signedOut()
  }
  const cookieStore = (window as { cookieStore?: EventTarget }).cookieStore
  if (cookieStore) {
    cookieStore.addEventListener('change', check)
    return () => cookieStore.removeEventListener('change', check)
  }
  const timer = window.setInterval(check, 300)
  return () => window.clearInterval(timer)
}
