// Screens that show "today" and "up to now" compute them at render. A screen left open (a store-front
// device, the overview on the counter) must move on by itself: past each hour, past midnight (UTC),
// and into a quiet store's warning. This re-renders its screen every minute.
import { useEffect, useState } from 'react'

export const minuteMs = 60_000

export function useMinuteTick() {
  const [, setTick] = useState(0)
  useEffect(() => {
    const timer = window.setInterval(() => setTick((tick) => tick + 1), minuteMs)
    return () => window.clearInterval(timer)
  }, [])
}
