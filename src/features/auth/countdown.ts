import { useCallback, useEffect, useState } from 'react'

/** The verification countdown's length when the server does not say how long its code lives. */
export const codeSeconds = 180

/** `03 : 00` down to `00 : 01`. */
export function countdownLabel(seconds: number) {
  const minutes = Math.floor(seconds / 60)
  return `${String(minutes).padStart(2, '0')} : ${String(seconds % 60).padStart(2, '0')}`
}

/** `3분`, `1분 30초`, `45초`: how long a code lives, as the screen reader's status says it. */
export function durationText(seconds: number) {
  const minutes = Math.floor(seconds / 60)
  const rest = seconds % 60
  return [minutes ? `${minutes}분` : '', rest || !minutes ? `${rest}초` : ''].filter(Boolean).join(' ')
}

/**
 * A countdown that ticks once a second. It counts from a deadline, not from ticks, so a phone that
 * slept or a throttled background tab still shows the right time.
 */
export function useCountdown() {
  const [deadline, setDeadline] = useState<number | null>(null)
  const [remaining, setRemaining] = useState(0)
  /** The seconds it was started with. */
  const [length, setLength] = useState(0)

  useEffect(() => {
    if (deadline === null) return
    const tick = () => {
      const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000))
      setRemaining(left)
      if (left === 0) setDeadline(null)
    }
    tick()
    const timer = window.setInterval(tick, 1000)
    return () => window.clearInterval(timer)
  }, [deadline])

  /** Starts counting down `seconds`. */
  const start = useCallback((seconds: number) => {
    setDeadline(Date.now() + seconds * 1000)
    setRemaining(seconds)
    setLength(seconds)
  }, [])
  const reset = useCallback(() => {
    setDeadline(null)
    setRemaining(0)
  }, [])
  return { running: deadline !== null, remaining, length, start, reset }
}
