import { act, renderHook } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { countdownLabel, useCountdown } from '../../src/features/auth/countdown.ts'

describe('the verification countdown', () => {
  it('reads MM : SS from 03 : 00 down to 00 : 01', () => {
    expect(countdownLabel(180)).toBe('03 : 00')
    expect(countdownLabel(179)).toBe('02 : 59')
    expect(countdownLabel(61)).toBe('01 : 01')
    expect(countdownLabel(60)).toBe('01 : 00')
    expect(countdownLabel(1)).toBe('00 : 01')
  })

  it('runs 180 seconds, ticking once a second, then goes back to idle', () => {
    vi.useFakeTimers()
    const { result } = renderHook(() => useCountdown())
    expect(result.current.running).toBe(false)
    act(() => result.current.start(180))
    expect(result.current.running).toBe(true)
    expect(result.current.remaining).toBe(180)
    act(() => {
      vi.advanceTimersByTime(1000)
    })
    expect(result.current.remaining).toBe(179)
    act(() => {
      vi.advanceTimersByTime(178_000)
    })
    expect(result.current.remaining).toBe(1)
    expect(result.current.running).toBe(true)
    act(() => {
      vi.advanceTimersByTime(1000)
    })
    expect(result.current.running).toBe(false)
  })

  it('goes back to idle on reset', () => {
    vi.useFakeTimers()
    const { result } = renderHook(() => useCountdown())
    act(() => result.current.start(180))
    act(() => result.current.reset())
    expect(result.current.running).toBe(false)
  })
})
