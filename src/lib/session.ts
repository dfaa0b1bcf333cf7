// The signed-in session as the device remembers it: the user (local storage `user-sotre`, version 0)
// and the stores with the selected one (`store-store`, version 1). Several features read it, so it
// lives here rather than in any one of them.

import { create } from 'zustand'
import { persist } from 'zustand/middleware'
import type { Store, User } from '../../contract/api.ts'

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
