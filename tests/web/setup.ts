import '@testing-library/jest-dom/vitest'
import { cleanup, configure } from '@testing-library/react'
import Cookies from 'js-cookie'
import { afterEach, vi } from 'vitest'

// A screen's lazily loaded part (the machines section, a route's chunk) is imported on first use: on a
// loaded 2-core machine that alone can pass the library's 1 s wait, so `find…` and `waitFor` wait up to 5 s.
configure({ asyncUtilTimeout: 5000 })

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
