// What the devices screen says of a device, from the list's fields (docs/product.md, decision 73).
import type { Device } from '../../../contract/api.ts'
import { isOffline, offlineAfterMs } from '../../../domain/devices.ts'

export type DeviceState = '연결됨' | '연결 끊김' | '해제됨' | '연결 대기'

export function deviceState(device: Device, now: number): DeviceState {
  if (device.revokedAt !== null) return '해제됨'
  if (device.pairedAt === null) return '연결 대기'
  if (device.lastSeenAt === null) return '연결 끊김'
  // Not heard from in 3 heartbeats (60 s each): disconnected (domain/devices.ts).
  return isOffline(Date.parse(device.lastSeenAt), now) ? '연결 끊김' : '연결됨'
}

/** `+1.2초`, `-0.4초`, `0초`; `—` when unknown. */
export function skewText(skewMs: number | null): string {
  if (skewMs === null) return '—'
  const seconds = Math.round(skewMs / 100) / 10
  if (seconds === 0) return '0초'
  const abs = Math.abs(seconds)
  const text = abs >= 60 ? `${Math.round(abs / 6) / 10}분` : `${abs}초`
  return `${seconds > 0 ? '+' : '-'}${text}`
}

/**
 * The next instant at which a device listed turns `연결 끊김` by itself (no heartbeat since), after `now`;
 * null when none will. The open screen re-renders then, so that it shows a device offline at 3 minutes
 * (decision 184), not up to a minute later at its next minute's tick.
 */
export function nextStateChange(devices: Device[], now: number): number | null {
  let next: number | null = null
  for (const device of devices) {
    if (device.revokedAt !== null || device.pairedAt === null || device.lastSeenAt === null) continue
    const at = Date.parse(device.lastSeenAt) + offlineAfterMs + 1
    if (at > now && (next === null || at < next)) next = at
  }
  return next
}
