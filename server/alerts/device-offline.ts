// The device rule (docs/product.md §12, decisions 180–181): one alert a store outage (outages.ts), not
// one a device, naming the devices unheard; recorded for each member once the outage lasted the
// member's own `deviceOfflineMinutes` (5–30, 10 by default), so that a device back within them pushes
// nothing. A store whose devices dropped 3 times within an hour is flapping: one `연결이 불안정합니다` alert
// for the chain of outages, at once, instead of an alert each.
import { deviceOfflineAlert, deviceUnstableAlert } from '../../domain/alert-texts.ts'
import { isOffline } from '../../domain/devices.ts'
import { flappingOf } from './outages.ts'
import type { Candidate, DeviceState, StoreState } from './store-state.ts'

/** Whether a device of the store is offline at `now` (then its sales cannot arrive: no quiet alert). */
export const anyOffline = (devices: DeviceState[], now: number) =>
  devices.some((device) => isOffline(device.seenAt, now))

/** The outage alert's episode: its start. */
export const outageEpisode = (since: number) => `store:${new Date(since).toISOString()}`

/** How the alert names the devices unheard at `now`: one by its name (and how many more), or all by their number, and since when. */
export function silentOf(devices: DeviceState[], now: number) {
  const silent = devices.filter((device) => isOffline(device.seenAt, now))
  if (silent.length === 0) return null
  const [first] = silent as [DeviceState, ...DeviceState[]]
  const seen = silent.map((device) => device.seenAt)
  // Every device: since the last of them was heard; else since the first unheard was.
  return silent.length === devices.length && devices.length > 1
    ? { silent: { devices: devices.length }, since: Math.max(...seen) }
    : { silent: { device: first.name, more: silent.length - 1 }, since: Math.min(...seen) }
}

/** The store's device alert at `now`: its open outage's, or its flapping's; none without an open outage. */
export function deviceCandidates(store: StoreState, now: number): Candidate[] {
  const open = store.outages.find((outage) => outage.endedAt === null)
  const silent = silentOf(store.devices, now)
  if (!open || !silent) return []
  const flapping = flappingOf(store.outages, open, now)
  if (flapping) {
    const episode = `unstable:${new Date(flapping.since).toISOString()}`
    return [
      {
        storeId: store.id,
        kind: 'deviceOffline',
        episode,
        ...deviceUnstableAlert(store.name, flapping.episodes),
        tag: `device:${store.id}:${episode}`,
      },
    ]
  }
  const episode = outageEpisode(open.since)
  return [
    {
      storeId: store.id,
      kind: 'deviceOffline',
      episode,
      offlineSince: open.since,
      ...deviceOfflineAlert(store.name, silent.silent, silent.since),
      tag: `device:${store.id}:${episode}`,
    },
  ]
}
