import '@testing-library/jest-dom/vitest'
import { cleanup } from '@testing-library/react'
import Cookies from 'js-cookie'
import { afterEach, vi } from 'vitest'

afterEach(() => {
  cleanup()
  for (const name of Object.keys(Cookies.get())) Cookies.remove(name, { path: '/' })
  localStorage.clear()
  sessionStorage.clear()
  vi.restoreAllMocks()
  vi.unstubAllGlobals()
  vi.useRealTimers()
})
