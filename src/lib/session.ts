// The signed-in session as the device remembers it: the user (local storage `user-sotre`, version 0)
// and the stores with the selected one (`store-store`, version 1), beside the tokens in cookies.
// Several features read it, so it lives here rather than in any one of them.
import { create } from 'zustand'
import { persist } from 'zustand/middleware'
import type { ProfileAnswer, Store, User } from '../../contract/api.ts'
import { requestJson } from './api.ts'
import { clearProblem } from './problem.ts'
import { isOwnSignIn, isSessionCurrent, removeTokens } from './tokens.ts'

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
 * Takes in a fetched profile. At sign-in the first store is selected; when the session is
 * refreshed the owner's selection is kept if the store is still theirs. A profile
 * fetched for a session that has ended since (`startedIn` is the generation its fetch started in) is
 * dropped: false, and nothing written.
 */
export function applyProfile(
  profile: ProfileAnswer,
  { keepSelection, startedIn }: { keepSelection: boolean; startedIn: number },
): boolean {
  if (!isSessionCurrent(startedIn)) return false
  const selected = useStoreStore.getState().store
  const kept = keepSelection ? profile.stores.find((store) => store.id === selected?.id) : undefined
  useUserStore.getState().setUser(profile.user)
  useStoreStore.setState({ stores: profile.stores, store: kept ?? profile.stores[0] ?? null })
  useUserStore.getState().setLoggedIn(true)
  return true
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
 *
 * The session ends first and at once (before anything is awaited): every request still running for
 * it is aborted, and no answer that still arrives writes tokens, the user, the stores or figures.
 */
export async function clearDevice() {
  removeTokens()
  useUserStore.setState({ user: null, isLoggedIn: false })
  useStoreStore.setState({ store: null, stores: [] })
  useUserStore.persist.clearStorage()
  useStoreStore.persist.clearStorage()
  clearProblem()
  // Loaded lazily: the login screen, which can end a session too, does not carry the query client.
  const { queryClient, persister, restored } = await import('./query-client.ts')
  await restored
  // Fetches still running are cancelled first, so none of them settles into the emptied cache.
  await queryClient.cancelQueries()
  queryClient.clear()
  await Promise.all([persister.removeClient(), clearRuntimeCaches()])
}

/**
 * Follows a sign-out made in another tab within about 300 ms: its cookies removed, or replaced by
 * another sign-in (the sign-in id differs from this tab's; a token refresh keeps the id). Through the
 * Cookie Store API's change event where the browser has one, else by looking every 300 ms.
 */
export function watchForSignOutElsewhere(signedOut: () => void): () => void {
  const check = () => {
    if (useUserStore.getState().isLoggedIn && !isOwnSignIn()) signedOut()
  }
  const cookieStore = (window as { cookieStore?: EventTarget }).cookieStore
  if (cookieStore) {
    cookieStore.addEventListener('change', check)
    return () => cookieStore.removeEventListener('change', check)
  }
  const timer = window.setInterval(check, 300)
  return () => window.clearInterval(timer)
}
