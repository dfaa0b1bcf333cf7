// The quiet rule: a store that usually sells at this hour has sold nothing for hours (docs/product.md
// §12). The rule is the app's own (domain/quiet.ts), run on the server's view of the store; one
// alert per quiet episode (its start). No quiet alert while a device of the store is offline: its sales
// cannot arrive, and the device alert says it (decision 104).
import { quietAlert } from '../../domain/alert-texts.ts'
import { quietStoreOf } from '../../domain/quiet.ts'
import { anyOffline } from './device-offline.ts'
import type { Candidate, StoreState } from './store-state.ts'

export function quietCandidates(store: StoreState, now: Date): Candidate[] {
  if (anyOffline(store.devices, now.getTime())) return []
  const quiet = quietStoreOf(store.current, store.previous, now, true)
  if (!quiet) return []
  const episode = new Date(quiet.since).toISOString()
  return [
    {
      storeId: store.id,
      kind: 'quiet',
      episode,
      ...quietAlert(store.name, quiet),
      tag: `quiet:${store.id}:${episode}`,
    },
  ]
}
