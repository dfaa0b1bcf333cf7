// What the router hands to every route's guard and loader (TanStack Router's typed router context),
// instead of module globals: the session as the device remembers it, and the query client, which is
// loaded only with the signed-in screens (the login screen never downloads it).
import type { QueryClient } from '@tanstack/react-query'
import type { SessionView } from '../lib/session-state.ts'

export interface RouterContext {
  session: SessionView
  /** The query client, once the figures kept on the device are restored into it. */
  queryClient(): Promise<QueryClient>
}
