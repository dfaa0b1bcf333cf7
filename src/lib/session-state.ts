// The signed-in session as the device remembers it: the user (local storage `user-sotre`, version 0)
// and the stores with the selected one (`store-store`, version 1; the names are shell/names.ts's, which
// the first painter reads too), beside the tokens in cookies (tokens.ts); the profile, its one owner:
// fetched (fetchProfile) and taken in (applyProfile); and the one way all of it is forgotten
// (wipeDevice). Several features read it, so it lives here; when and why a session begins and ends is
// the auth feature's (features/auth/session.ts).
import { create } from 'zustand'
import { createJSONStorage, persist } from 'zustand/middleware'
import type { ProfileAnswer, Store, User } from '../../contract/api.ts'
import { storeSignInOpens } from '../../contract/opened-store.ts'
import { storesStorageKey, userStorageKey } from '../shell/names.ts'
import { removeShell } from '../shell/remove-shell.ts'
import { requestJson } from './api.ts'
import { forgetTotals, forgetTotalsUnlessOf } from './kept-totals.ts'
import { clearProblem } from './problem.ts'
import { mayForgetUserData, signInStorage } from './sign-in-storage.ts'
import { isSessionCurrent, removeTokens } from './tokens.ts'

/** Both persisted stores keep to the tab's own sign-in (sign-in-storage.ts). */
const storage = createJSONStorage(() => signInStorage)

interface UserState {
  user: User | null
  isLoggedIn: boolean
  setUser(user: User): void
  setLoggedIn(isLoggedIn: boolean): void
}

export const useUserStore = create<UserState>()(
  persist(
    (set) => ({
      user: null,
      isLoggedIn: false,
      setUser: (user) => set({ user }),
      setLoggedIn: (isLoggedIn) => set({ isLoggedIn }),
    }),
    { name: userStorageKey, version: 0, storage },
  ),
)

interface StoreState {
  store: Store | null
  stores: Store[]
  setStore(store: Store): void
}

export const useStoreStore = create<StoreState>()(
  persist(
    (set) => ({
      store: null,
      stores: [],
      setStore: (store) => set({ store }),
    }),
    { name: storesStorageKey, version: 1, storage },
  ),
)

/**
 * Signed in as the guards see it: the device remembers a session (`isLoggedIn` of `user-sotre`, set when
 * a profile is taken in, cleared by the wipe). It says which screens show: the signed-in ones, or the
 * login screen. It is not whether this tab may keep user data on the device (`mayKeepUserData`,
 * sign-in-storage.ts), which follows the cookies: a remembered session whose cookies are gone, or hold
 * another sign-in, is still signed in here until the session's life ends it (features/auth/session.ts:
 * at start, before the router's first guard runs, and within about 300 ms while the app runs).
 */
export const isSignedIn = () => useUserStore.getState().isLoggedIn

/** What the router's guard and loaders know of the session (the router context's `session`). */
export const sessionView = {
  isSignedIn,
  /** The remembered selected store, if it is still one of the user's. */
  selectedStoreId: () => useStoreStore.getState().store?.id,
  hasStore: (id: number) => useStoreStore.getState().stores.some((store) => store.id === id),
  /** Whether the user sees the store's won amounts (docs/product.md §15). */
  seesMoney: (id: number) =>
    useStoreStore.getState().stores.find((store) => store.id === id)?.showsMoney !== false,
  /** The ids of every store the user may see, in their order. */
  storeIds: () => useStoreStore.getState().stores.map((store) => store.id),
  /** Makes the store with this id the remembered selection (an id not among the user's is ignored). */
  selectStore(id: number) {
    const { store, stores } = useStoreStore.getState()
    const chosen = stores.find((option) => option.id === id)
    if (chosen && chosen.id !== store?.id) useStoreStore.getState().setStore(chosen)
  },
}
export type SessionView = typeof sessionView

export const noPermission = 'You do not have permission'

/** The profile lists no store: the user may see nothing here, and the session ends. */
export class NoStoresError extends Error {
  constructor() {
    super(noPermission)
    this.name = 'NoStoresError'
  }
}

/**
 * The profile call: the signed-in user and their stores. Rejects with NoStoresError when there is no
 * store, and with EmptyAnswerError when the answer is empty.
 */
export async function fetchProfile(): Promise<ProfileAnswer> {
  const profile = await requestJson<ProfileAnswer>('/api/v0/user')
  if (profile.stores.length === 0) throw new NoStoresError()
  return profile
}

/**
 * Takes in a fetched profile. At sign-in the store a sign-in opens is selected (`storeSignInOpens`,
 * contract/opened-store.ts); when the session is refreshed the owner's selection is kept if the store is
 * still theirs, else that same store. A profile
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
  useStoreStore.setState({ stores: profile.stores, store: kept ?? storeSignInOpens(profile.stores) ?? null })
  useUserStore.getState().setLoggedIn(true)
  const money = profile.stores.filter((store) => store.showsMoney !== false).map((store) => store.id)
  forgetStoresNotIn(
    profile.stores.map((store) => store.id),
    money,
  )
  return true
}

/**
 * Forgets what the device keeps of stores a profile no longer lists (the owner's access to one was
 * revoked), and the won amounts of those whose money the owner hides from the user (docs/product.md
 * §15): their kept totals at once, and their kept figures.
 */
function forgetStoresNotIn(storeIds: number[], money: number[]) {
  forgetTotalsUnlessOf(money)
  // Loaded lazily, as by wipeDevice; a sign-in loads it next anyway, for the screen it opens.
  void import('./query-client.ts').then(({ forgetStoresBut }) => forgetStoresBut(storeIds, money))
}

/**
 * The service worker's runtime caches (pictures); the precached app shell holds nobody's data. Kept when
 * another sign-in holds the device: they are its pictures now.
 */
async function clearRuntimeCaches() {
  if (typeof caches === 'undefined' || !mayForgetUserData()) return
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
 *
 * When the cookies hold another sign-in (another user signed in in another tab, whose logout there
 * already wiped this session's state), only this tab forgets: the device's state is the new sign-in's,
 * and stays (sign-in-storage.ts; its cookies stay too, tokens.ts).
 */
export async function wipeDevice() {
  // The device is no one's now: its push subscription ends too, so that a logout the server never heard
  // of (offline) leaves no alert of this user arriving here (the push service then answers 410 and the
  // server forgets it). Another sign-in's device keeps it: it is that sign-in's.
  if (removeTokens())
    navigator.serviceWorker
      ?.getRegistration()
      .then((registration) => registration?.pushManager?.getSubscription())
      .then((subscription) => subscription?.unsubscribe())
      .catch(() => {})
  useUserStore.setState({ user: null, isLoggedIn: false })
  useStoreStore.setState({ store: null, stores: [] })
  useUserStore.persist.clearStorage()
  useStoreStore.persist.clearStorage()
  forgetTotals()
  removeShell()
  clearProblem()
  // Loaded lazily: the login screen, which can end a session too, does not carry the query client.
  const { queryClient, persister, restored } = await import('./query-client.ts')
  await restored
  // Fetches still running are cancelled first, so none of them settles into the emptied cache.
  await queryClient.cancelQueries()
  queryClient.clear()
  await Promise.all([persister.removeClient(), clearRuntimeCaches()])
}
