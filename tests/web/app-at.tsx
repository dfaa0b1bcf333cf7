// The app's real route tree in a test, with the router context main.tsx gives it, and a device
// signed in with some stores: what screen tests that go through the router share.
import { QueryClient } from '@tanstack/react-query'
import { createMemoryHistory, createRouter, RouterProvider } from '@tanstack/react-router'
import { render } from '@testing-library/react'
import Cookies from 'js-cookie'
import type { Store } from '../../contract/api.ts'
import { sessionView, useStoreStore, useUserStore } from '../../src/lib/session-state.ts'
import { routeTree } from '../../src/routeTree.gen.ts'

export const owner = { id: 1, name: '김사장', phone: '01012345678', image: null }

/** A device signed in as `owner` with `stores`, the first selected. */
export function signedIn(stores: Store[]) {
  Cookies.set('accessToken', 'a1', { path: '/' })
  Cookies.set('refreshToken', 'r1', { path: '/' })
  useUserStore.setState({ user: owner, isLoggedIn: true })
  useStoreStore.setState({ store: stores[0], stores })
}

/** The app opened at `address`, with a query client that does not retry. */
export function startAt(address: string) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  const router = createRouter({
    routeTree,
    history: createMemoryHistory({ initialEntries: [address] }),
    context: { session: sessionView, queryClient: async () => queryClient },
  })
  render(<RouterProvider router={router} />)
  return { router, queryClient }
}
