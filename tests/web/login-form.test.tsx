import { act, fireEvent, render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import Cookies from 'js-cookie'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { LoginForm } from '../../src/features/auth/login-form.tsx'
import { page } from '../../src/lib/page.ts'
import { useStoreStore, useUserStore } from '../../src/lib/session-state.ts'
import { fakeServer, json, offline } from './fake-server.ts'

const user = { id: 1, name: '김사장', phone: '01012345678', image: null }
const stores = [
  { id: 1, name: '역삼점', images: ['demo/store-1.svg'] },
  { id: 2, name: '선릉점', images: [] },
]
let alert: ReturnType<typeof vi.spyOn>
let reload: ReturnType<typeof vi.spyOn>

beforeEach(() => {
  alert = vi.spyOn(page, 'alert').mockImplementation(() => {})
  reload = vi.spyOn(page, 'reload').mockImplementation(() => {})
  useUserStore.setState({ user: null, isLoggedIn: false })
  useStoreStore.setState({ store: null, stores: [] })
})

/**
 * Renders the form, types a number and presses Enter; from the press on, time moves only when the test
 * says so. Resolves once the countdown shows.
 */
async function requestCodeOnFakeTime() {
  render(<LoginForm onSignedIn={() => {}} />)
  await userEvent.setup().type(phoneField(), '01012345678')
  vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'Date'] })
  fireEvent.submit(phoneField())
  for (let i = 0; i < 50 && !requestButton().textContent?.includes(':'); i++) {
    await act(() => vi.advanceTimersByTimeAsync(0))
  }
}

function server(profileStores = stores, phoneAnswer: unknown = { expiresIn: 180 }) {
  return fakeServer({
    'PUT /api/v0/user/phone': () => json(200, phoneAnswer),
    'POST /api/v0/user/sign': (call) =>
      (call.body as { code: string }).code === '1234'
        ? json(200, { token: { access: 'a1', refresh: 'r1' } })
        : json(401, { message: '인증번호가 일치하지 않습니다.' }),
    'GET /api/v0/user': () => json(200, { user, stores: profileStores }),
  })
}

const phoneField = () => screen.getByLabelText('휴대폰 번호')
const codeField = () => screen.getByLabelText('인증번호')
const requestButton = () => screen.getByRole('button', { name: /get verification code|\d\d : \d\d/ })
const loginButton = () => screen.getByRole('button', { name: 'Login' })

describe('the login form', () => {
  it('starts with the phone field and its button active, the code field and Login inactive', () => {
    render(<LoginForm onSignedIn={() => {}} />)
    expect(phoneField()).toBeEnabled()
    expect(phoneField()).toHaveAttribute('placeholder', '01012345678')
    expect(codeField()).toBeDisabled()
    expect(codeField()).toHaveAttribute('placeholder', '0000')
    expect(requestButton()).toHaveTextContent('get verification code')
    expect(requestButton()).toBeDisabled()
    expect(loginButton()).toBeDisabled()
  })

  it('enables the code button for 10 or 11 digits, hyphens and spaces ignored', async () => {
    render(<LoginForm onSignedIn={() => {}} />)
    const typist = userEvent.setup()
    await typist.type(phoneField(), '010-123')
    expect(requestButton()).toBeDisabled()
    await typist.type(phoneField(), '4 5678')
    expect(requestButton()).toBeEnabled()
    await typist.clear(phoneField())
    await typist.type(phoneField(), '0111234567')
    expect(requestButton()).toBeEnabled()
    await typist.type(phoneField(), '89')
    expect(requestButton()).toBeDisabled()
  })

  it('after a code is requested: countdown 03 : 00, phone disabled, code active, focus on the code 9 ms later', async () => {
    const fake = server()
    await requestCodeOnFakeTime()
    expect(requestButton()).toHaveTextContent('03 : 00')
    expect(fake.calls[0]).toMatchObject({
      method: 'PUT',
      path: '/api/v0/user/phone',
      body: { phone: '01012345678' },
    })
    expect(phoneField()).toBeDisabled()
    expect(requestButton()).toBeDisabled()
    expect(codeField()).toBeEnabled()
    await act(() => vi.advanceTimersByTimeAsync(8))
    expect(codeField()).not.toHaveFocus()
    await act(() => vi.advanceTimersByTimeAsync(1))
    expect(codeField()).toHaveFocus()
    await act(() => vi.advanceTimersByTimeAsync(991))
    expect(requestButton()).toHaveTextContent('02 : 59')
  })

  it.each([
    [{ expiresIn: 300 }, '05 : 00', '5분'],
    [{ expiresIn: 90 }, '01 : 30', '1분 30초'],
    [{}, '03 : 00', '3분'],
    [{ expiresIn: 'soon' }, '03 : 00', '3분'],
    [{ expiresIn: -5 }, '03 : 00', '3분'],
  ])(
    'the countdown, and what a screen reader is told, last as long as the server says the code lives: %j → %s',
    async (answer, label, said) => {
      server(stores, answer)
      await requestCodeOnFakeTime()
      expect(requestButton()).toHaveTextContent(label)
      expect(screen.getByRole('status')).toHaveTextContent(
        `인증번호를 보냈습니다. ${said} 안에 입력해 주세요.`,
      )
    },
  )

  it('at zero goes back to idle: phone field and its button active again', async () => {
    server()
    // Time moves only when the test says so: no busy machine can move the countdown on by itself.
    await requestCodeOnFakeTime()
    expect(requestButton()).toHaveTextContent('03 : 00')
    act(() => {
      vi.advanceTimersByTime(180_000)
    })
    expect(requestButton()).toHaveTextContent('get verification code')
    expect(phoneField()).toBeEnabled()
    expect(codeField()).toBeDisabled()
  })

  it('Login needs 4 digits; Enter in the code field signs in and selects the first store', async () => {
    const fake = server()
    const onSignedIn = vi.fn()
    render(<LoginForm onSignedIn={onSignedIn} />)
    const typist = userEvent.setup()
    await typist.type(phoneField(), '01012345678{Enter}')
    await vi.waitFor(() => expect(codeField()).toBeEnabled())
    await typist.type(codeField(), '123{Enter}')
    expect(loginButton()).toBeDisabled()
    expect(fake.count('POST /api/v0/user/sign')).toBe(0)
    await typist.type(codeField(), '4{Enter}')
    await vi.waitFor(() => expect(onSignedIn).toHaveBeenCalledTimes(1))
    expect(fake.calls.map((call) => `${call.method} ${call.path}`).slice(-3)).toEqual([
      'POST /api/v0/user/sign',
      'GET /api/v0/user',
      // The opened store's figures, asked for as soon as the profile names it (figures/year-request.ts).
      'GET /api/v0/store/1/usage',
    ])
    expect(fake.calls.at(-3)).toMatchObject({ body: { phone: '01012345678', code: '1234' } })
    expect(Cookies.get('accessToken')).toBe('a1')
    expect(Cookies.get('refreshToken')).toBe('r1')
    expect(useUserStore.getState()).toMatchObject({ user, isLoggedIn: true })
    expect(useStoreStore.getState()).toMatchObject({ stores, store: stores[0] })
    expect(JSON.parse(localStorage.getItem('user-sotre') ?? '{}')).toMatchObject({
      version: 0,
      state: { isLoggedIn: true },
    })
    expect(JSON.parse(localStorage.getItem('store-store') ?? '{}')).toMatchObject({
      version: 1,
      state: { store: stores[0] },
    })
  })

  it("refuses an account without stores: alerts 'You do not have permission', stays signed out, reloads", async () => {
    server([])
    const onSignedIn = vi.fn()
    render(<LoginForm onSignedIn={onSignedIn} />)
    const typist = userEvent.setup()
    await typist.type(phoneField(), '01000000000{Enter}')
    await vi.waitFor(() => expect(codeField()).toBeEnabled())
    await typist.type(codeField(), '1234{Enter}')
    await vi.waitFor(() => expect(reload).toHaveBeenCalledTimes(1))
    expect(alert).toHaveBeenCalledWith('You do not have permission')
    expect(onSignedIn).not.toHaveBeenCalled()
    expect(useUserStore.getState().isLoggedIn).toBe(false)
    expect(Cookies.get('accessToken')).toBeUndefined()
    expect(Cookies.get('refreshToken')).toBeUndefined()
  })

  it("a wrong code alerts the server's message and reloads the page", async () => {
    server()
    render(<LoginForm onSignedIn={() => {}} />)
    const typist = userEvent.setup()
    await typist.type(phoneField(), '01012345678{Enter}')
    await vi.waitFor(() => expect(codeField()).toBeEnabled())
    await typist.type(codeField(), '9999{Enter}')
    await vi.waitFor(() => expect(reload).toHaveBeenCalledTimes(1))
    expect(alert).toHaveBeenCalledWith('인증번호가 일치하지 않습니다.')
  })

  it("a refused code request alerts the server's message and reloads the page", async () => {
    fakeServer({
      'PUT /api/v0/user/phone': () =>
        json(429, { message: '인증번호 요청이 너무 많습니다. 잠시 후 다시 시도해 주세요.' }),
    })
    render(<LoginForm onSignedIn={() => {}} />)
    await userEvent.setup().type(phoneField(), '01012345678{Enter}')
    await vi.waitFor(() => expect(reload).toHaveBeenCalledTimes(1))
    expect(alert).toHaveBeenCalledWith('인증번호 요청이 너무 많습니다. 잠시 후 다시 시도해 주세요.')
  })

  it('an empty answer to the code request reloads the page', async () => {
    fakeServer({ 'PUT /api/v0/user/phone': () => new Response(null, { status: 200 }) })
    render(<LoginForm onSignedIn={() => {}} />)
    await userEvent.setup().type(phoneField(), '01012345678{Enter}')
    await vi.waitFor(() => expect(reload).toHaveBeenCalledTimes(1))
    expect(requestButton()).toHaveTextContent('get verification code')
  })

  it('offline, says so and keeps what was typed (no reload)', async () => {
    offline()
    render(<LoginForm onSignedIn={() => {}} />)
    await userEvent.setup().type(phoneField(), '01012345678{Enter}')
    await vi.waitFor(() => expect(alert).toHaveBeenCalledTimes(1))
    expect(alert.mock.calls[0]?.[0]).toMatch(/인터넷에 연결되어 있지 않습니다/)
    expect(reload).not.toHaveBeenCalled()
    expect(phoneField()).toHaveValue('01012345678')
  })

  it('a disabled button ignores clicks', async () => {
    const fake = server()
    render(<LoginForm onSignedIn={() => {}} />)
    await userEvent.setup().click(requestButton())
    expect(fake.calls).toHaveLength(0)
  })
})
