// The alerts screen's two queries: the user's alert settings of each store, and the alerts sent and
// held. The route prefetches both while the screen's code loads (routes/_authed/alerts.tsx); the screen
// reads them and writes a changed setting's answer into the settings query.
import { queryOptions } from '@tanstack/react-query'
import type { AlertSettingsAnswer, AlertsAnswer } from '../../../contract/api.ts'
import { requestJson } from '../../lib/api.ts'

/** The query keys of the alerts screen. */
export const alertsKeys = {
  all: ['alerts'] as const,
  settings: () => [...alertsKeys.all, 'settings'] as const,
  list: () => [...alertsKeys.all, 'list'] as const,
}

export const alertSettingsPath = '/api/v0/alerts/settings'

export const alertSettingsQuery = queryOptions({
  queryKey: alertsKeys.settings(),
  queryFn: ({ signal }) => requestJson<AlertSettingsAnswer>(alertSettingsPath, { signal }),
})

/** The alerts of the last 30 days, asked again every minute while the screen is open. */
export const alertsListQuery = queryOptions({
  queryKey: alertsKeys.list(),
  queryFn: ({ signal }) => requestJson<AlertsAnswer>('/api/v0/alerts', { signal }),
  refetchInterval: 60_000,
})
