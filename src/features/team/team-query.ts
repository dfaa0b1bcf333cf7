// The owner's team of a store, as queries: their keys, their calls, and the store the screen shows. The
// route prefetches the members while the screen's code loads (routes/_authed/team.tsx); the screen and
// its actions (invite, change, remove, cancel) read and refresh the same queries. Nothing of it is kept
// on the device (the query client keeps only figures): members' numbers stay on the server.
import { queryOptions } from '@tanstack/react-query'
import type { Store } from '../../../contract/api.ts'
import type { MembersAnswer, TeamLogAnswer } from '../../../contract/team.ts'
import { requestJson } from '../../lib/api.ts'

/** The query keys of the team screen. */
export const teamKeys = {
  all: ['team'] as const,
  store: (storeId: number) => [...teamKeys.all, storeId] as const,
  members: (storeId: number) => [...teamKeys.store(storeId), 'members'] as const,
  log: (storeId: number) => [...teamKeys.store(storeId), 'log'] as const,
}

/** The store's team calls: `/members`, `/members/{userId}`, `/members/log`, `/invites`, `/invites/{id}`. */
export const teamPath = (storeId: number) => `/api/v0/store/${storeId}`

/**
 * The members (with the alerts each has on) and the pending invites: asked each time the screen opens
 * a store, and again every 30 s while it shows (an invitee joins by signing in, elsewhere).
 */
export const membersQuery = (storeId: number) =>
  queryOptions({
    queryKey: teamKeys.members(storeId),
    queryFn: ({ signal }) => requestJson<MembersAnswer>(`${teamPath(storeId)}/members`, { signal }),
    staleTime: 0,
    refetchInterval: 30_000,
  })

/** The team's log, newest first: asked with the members, at the same times. */
export const teamLogQuery = (storeId: number) =>
  queryOptions({
    queryKey: teamKeys.log(storeId),
    queryFn: ({ signal }) => requestJson<TeamLogAnswer>(`${teamPath(storeId)}/members/log`, { signal }),
    staleTime: 0,
    refetchInterval: 30_000,
  })

/**
 * The store whose team the screen shows: the address's, only when the user owns it (else none, and the
 * screen says only its owner runs its team); without one in the address, the remembered store when
 * owned, else the first the user owns; none for a user who owns none.
 */
export function teamStoreOf(
  named: number | undefined,
  { stores, store: remembered }: { stores: Store[]; store: Store | null },
): Store | undefined {
  const owned = stores.filter((store) => store.role === 'owner')
  if (named !== undefined) return owned.find((option) => option.id === named)
  return owned.find((option) => option.id === remembered?.id) ?? owned[0]
}
