import '@testing-library/jest-dom/vitest'
import { cleanup } from '@testing-library/react'
import Cookies from 'js-cookie'
import { afterEach, vi } from 'vitest'

afterEach(() => {
  cleanup()
  for (const name of Object.keys(Cookies.get())) Cookies.remove(name, { path: '/' })
  localStorage.clear()
  vi.restoreAllMocks()
  vi.unstubAllGlobals()
  // The reload guard's memory (after the globals are restored: a test may replace session storage).
  sessionStorage.clear()
  vi.useRealTimers()
})
