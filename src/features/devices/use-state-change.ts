// The devices screen re-renders when a device listed turns offline by itself (device-state.ts
// `nextStateChange`): the moment 3 heartbeats were missed, not at the next minute's tick (decision 184).
import { useEffect, useState } from 'react'
import type { Device } from '../../../contract/api.ts'
import { now as clockNow } from '../../figures/clock.ts'
import { nextStateChange } from './device-state.ts'

export function useStateChangeTick(devices: Device[] | undefined) {
  const [, setTick] = useState(0)
  const next = devices ? nextStateChange(devices, clockNow().getTime()) : null
  useEffect(() => {
    if (next === null) return
    const timer = window.setTimeout(
      () => setTick((tick) => tick + 1),
      Math.max(0, next - clockNow().getTime()),
    )
    return () => window.clearTimeout(timer)
  }, [next])
}
