import { fireEvent, render, screen } from '@testing-library/react'
import Cookies from 'js-cookie'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { endSession } from '../../src/features/auth/session.ts'
import { recheckSession } from '../../src/features/auth/session-check.ts'
import { emptyAnswerMessage } from '../../src/lib/api.ts'
import { page, reloadFor, reloadGuardMs } from '../../src/lib/page.ts'
import { useProblem } from '../../src/lib/problem.ts'
import { useStoreStore, useUserStore } from '../../src/lib/session-state.ts'
import { ProblemNotice } from '../../src/routes/-problem-notice.tsx'
import { fakeServer, json } from './fake-server.ts'

let reload: ReturnType<typeof vi.spyOn>

beforeEach(() => {
  reload = vi.spyOn(page, 'reload').mockImplementation(() => {})
  vi.spyOn(console, 'error').mockImplementation(() => {})
  useProblem.setState({ problem: null })
})

describe('the reload guard', () => {
  it('reloads once a minute at most per rule, remembered in session storage across the reload', () => {
    vi.useFakeTimers({ now: new Date('2026-11-23T06:00:00Z'), toFake: ['Date'] })
    expect(reloadFor('empty:profile')).toBe(true)
    expect(sessionStorage.getItem('reload-guard')).toContain('profile')
    expect(reloadFor('empty:profile')).toBe(false)
    // Another rule has its own minute.
    expect(reloadFor('empty:token')).toBe(true)
    vi.setSystemTime(Date.now() + reloadGuardMs - 1)
    expect(reloadFor('empty:profile')).toBe(false)
    vi.setSystemTime(Date.now() + 2)
    expect(reloadFor('empty:profile')).toBe(true)
    expect(reload).toHaveBeenCalledTimes(3)
  })

  it('a clock set back does not let a rule reload again at once', () => {
    vi.useFakeTimers({ now: new Date('2026-11-23T06:00:00Z'), toFake: ['Date'] })
    expect(reloadFor('empty:sign-in')).toBe(true)
    vi.setSystemTime(Date.now() - 30_000)
    expect(reloadFor('empty:sign-in')).toBe(false)
  })

  it('where it cannot remember, it does not reload at all', () => {
    vi.stubGlobal('sessionStorage', {
      getItem: () => null,
      setItem: () => {
        throw new Error('QuotaExceededError')
      },
    })
    expect(reloadFor('empty:code')).toBe(false)
    expect(reload).not.toHaveBeenCalled()
  })

  it('after the one reload, an empty profile shows a Korean message with a retry that asks again', async () => {
    Cookies.set('accessToken', 'a1', { path: '/' })
    Cookies.set('refreshToken', 'r1', { path: '/' })
    const user = { id: 1, name: '김사장', phone: '01012345678', image: null }
    const stores = [{ id: 1, name: '역삼점', images: [] }]
    useUserStore.setState({ user, isLoggedIn: true })
    useStoreStore.setState({ stores, store: stores[0] ?? null })
    let answerEmpty = true
    const server = fakeServer({
      'GET /api/v0/user': () =>
        answerEmpty ? new Response(null, { status: 200 }) : json(200, { user, stores }),
    })
    render(<ProblemNotice />)
    await recheckSession(endSession)
    expect(reload).toHaveBeenCalledTimes(1)
    expect(screen.queryByRole('alert')).not.toBeInTheDocument()
    await recheckSession(endSession)
    expect(reload).toHaveBeenCalledTimes(1)
    expect(await screen.findByRole('alert')).toHaveTextContent(emptyAnswerMessage)
    // The session is kept, as for any server in trouble.
    expect(useUserStore.getState().isLoggedIn).toBe(true)
    answerEmpty = false
    fireEvent.click(screen.getByRole('button', { name: '다시 시도' }))
    await vi.waitFor(() => expect(screen.queryByRole('alert')).not.toBeInTheDocument())
    expect(server.count('GET /api/v0/user')).toBe(3)
    expect(reload).toHaveBeenCalledTimes(1)
  })
})
