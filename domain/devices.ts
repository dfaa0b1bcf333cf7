// The rules a store's devices and the server agree on, one owner each (docs/product.md §11): how often
// a device says it is alive, when it counts as offline, and how much one batch of sales may carry.
// The reference device (device/), the server (server/devices, the overview, the alerts) and the
// devices screen all read them here. What makes one sale valid is sales.ts.

/** A device's heartbeat: every 60 s (the reference device's default, `--heartbeat-s`). */
export const heartbeatMs = 60_000
/** A paired device not heard from in this many heartbeats is offline (disconnected). */
export const missedHeartbeats = 3
/** A paired device not heard from in this long is offline: 3 heartbeats of 60 s. */
export const offlineAfterMs = missedHeartbeats * heartbeatMs

/** Whether a device last heard from at `seenAt` (epoch ms) is offline at `now`. */
export const isOffline = (seenAt: number, now: number) => now - seenAt > offlineAfterMs

/** At most this many sales in one batch (the server answers 400 beyond). */
export const maxSalesPerBatch = 500
/** At most this many bytes in one batch's body (the server answers 413 beyond). */
export const maxSalesBytes = 64 * 1024
