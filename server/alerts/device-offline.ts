// The device rule: a store's devices offline (docs/product.md §12, decision 104). Devices of a store that
// drop together make one alert for the store; a device alone (others still heard) is reported a
// heartbeat after it counts as offline, so that devices dropping within a heartbeat of each other make
// that one store alert and not several.
import { deviceOfflineAlert } from '../../domain/alert-texts.ts'
import { isOffline } from '../../domain/devices.ts'
import type { Candidate, DeviceState, StoreState } from './store-state.ts'

/** How long after it counts as offline a device alone is reported. */
export const singleDeviceGraceMs = 60_000

export interface DeviceAlert {
  storeId: number
  episode: string
  /** The device not answering (by its name), or every device of the store (their number). */
  silent: { device: string } | { devices: number }
  /** When the outage began: the latest heartbeat of the devices it is about. */
  since: number
}

/** Whether a device of the store is offline at `now` (then its sales cannot arrive: no quiet alert). */
export const anyOffline = (devices: DeviceState[], now: number) =>
  devices.some((device) => isOffline(device.seenAt, now))

/**
 * The device alerts of one store at `now`: one for the store when every paired device is offline (the
 * episode: the latest of their heartbeats, which stays put while they all are), else one per device
 * offline for a heartbeat longer than the offline rule (its episode: its own last heartbeat).
 */
export function deviceAlerts(storeId: number, devices: DeviceState[], now: number): DeviceAlert[] {
  if (devices.length === 0) return []
  const offline = devices.filter((device) => isOffline(device.seenAt, now))
  if (offline.length === devices.length) {
    const since = Math.max(...devices.map((device) => device.seenAt))
    return [
      {
        storeId,
        episode: `store:${new Date(since).toISOString()}`,
        since,
        silent: devices.length === 1 ? { device: devices[0]?.name ?? '' } : { devices: devices.length },
      },
    ]
  }
  return offline
    .filter((device) => isOffline(device.seenAt, now - singleDeviceGraceMs))
    .map((device) => ({
      storeId,
      episode: `device:${device.id}:${new Date(device.seenAt).toISOString()}`,
      since: device.seenAt,
      silent: { device: device.name },
    }))
}

/** The store's device alerts as candidates. */
export function deviceCandidates(store: StoreState, now: number): Candidate[] {
  return deviceAlerts(store.id, store.devices, now).map((device) => ({
    storeId: store.id,
    kind: 'deviceOffline',
    episode: device.episode,
    ...deviceOfflineAlert(store.name, device.silent, device.since),
    tag: `device:${store.id}:${device.episode}`,
  }))
}
