// index.html's login form, the part of the shell a visitor not signed in sees before the app runs
// (docs/product.md decision 30): the first painter shows it (or removes it), its code button follows
// the phone rule (contract/phone.ts) and keeps a press, and the app's login form takes it over.
import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import Cookies from 'js-cookie'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { isPhoneComplete } from '../../../contract/phone.ts'
import { LoginForm } from '../../../src/features/auth/login-form.tsx'
import { keepTotals } from '../../../src/lib/kept-totals.ts'
import { page } from '../../../src/lib/page.ts'
import { useStoreStore, useUserStore } from '../../../src/lib/session-state.ts'
import { adoptSignIn } from '../../../src/lib/tokens.ts'
import type { KeptTotals } from '../../../src/shell/kept-totals.ts'
import { fakeServer, json } from '../fake-server.ts'

const today = new Date()
const kept: KeptTotals = {
  storeId: 2,
  year: today.getFullYear(),
  month: today.getMonth() + 1,
  storeName: '선릉점',
  yearLabel: `${today.getFullYear()}년 매출`,
  yearTotal: '319,099,000원',
  monthLabel: `${today.getMonth() + 1}월 매출`,
  monthTotal: '22,071,000원',
  asOf: '11월 24일 23:05 기준',
}

/** Signed in as the app's guards see it: the user state in local storage. */
const setLoggedIn = (isLoggedIn: boolean) =>
  localStorage.setItem('user-sotre', JSON.stringify({ state: { user: null, isLoggedIn }, version: 0 }))

// A device signed in, with kept totals, as in tests/web/kept-totals.test.ts: each test says who is not.
beforeEach(() => {
  vi.spyOn(page, 'alert').mockImplementation(() => {})
  vi.spyOn(page, 'reload').mockImplementation(() => {})
  useUserStore.setState({ user: null, isLoggedIn: false })
  useStoreStore.setState({ store: null, stores: [] })
  Cookies.set('refreshToken', 'r1', { path: '/' })
  Cookies.set('signInId', 'sign-in-1', { path: '/' })
  adoptSignIn()
  setLoggedIn(true)
  localStorage.setItem(
    'store-store',
    JSON.stringify({ state: { stores: [{ id: 1 }, { id: 2 }], store: { id: 2 } }, version: 1 }),
  )
  keepTotals(kept)
})

const phoneField = () => screen.getByLabelText('휴대폰 번호')
const codeField = () => screen.getByLabelText('인증번호')
const requestButton = () => screen.getByRole('button', { name: /get verification code|\d\d : \d\d/ })
const server = () => fakeServer({ 'PUT /api/v0/user/phone': () => json(200, { expiresIn: 180 }) })

describe("index.html's login form, shown by the first painter", () => {
  /** index.html's body, hidden form included, with the painter run at `address`. */
  async function openWithForm(address: string) {
    document.body.innerHTML =
      '<header class="shell-header"></header><main class="login-main login-shell" hidden></main><div id="root"></div>'
    window.history.replaceState(null, '', address)
    vi.resetModules()
    await import('../../../src/shell/paint-first.ts')
    return document.querySelector<HTMLElement>('.login-shell')
  }

  it('is shown to a visitor not signed in on the login screen and the sales screen', async () => {
    setLoggedIn(false)
    Cookies.remove('refreshToken', { path: '/' })
    expect((await openWithForm('/login'))?.hidden).toBe(false)
    expect((await openWithForm('/'))?.hidden).toBe(false)
    localStorage.removeItem('user-sotre')
    expect((await openWithForm('/'))?.hidden).toBe(false)
  })

  it("enables its code button as the app's form does, and keeps a press for the app", async () => {
    setLoggedIn(false)
    const html = (await import('../../../index.html?raw')).default
    // index.html's own form, without its scripts.
    const form = html.match(/<main class="login-main login-shell"[\s\S]*?<\/main>/)?.[0] ?? ''
    document.body.innerHTML = `${form}<div id="root"></div>`
    window.history.replaceState(null, '', '/login')
    vi.resetModules()
    await import('../../../src/shell/paint-first.ts')
    const shell = document.querySelector<HTMLElement>('.login-shell') as HTMLElement
    const phone = shell.querySelector('input') as HTMLInputElement
    const button = shell.querySelector('button') as HTMLButtonElement
    expect(button.disabled).toBe(true)
    for (const typed of [
      '0101234567',
      '01012345678',
      '010-1234-5678',
      '010 1234 567',
      '010123456',
      '010123456789',
      '01o12345678',
      '',
    ]) {
      phone.value = typed
      phone.dispatchEvent(new Event('input', { bubbles: true }))
      expect(button.disabled, typed).toBe(!isPhoneComplete(typed))
    }
    phone.value = '0101234'
    shell.querySelector('form')?.requestSubmit()
    expect(shell.dataset.requested).toBeUndefined()
    phone.value = '01012345678'
    shell.querySelector('form')?.requestSubmit()
    expect(shell.dataset.requested).toBe('true')
  })

  it('is removed for someone signed in, and on any other screen', async () => {
    expect(await openWithForm('/login')).toBeNull()
    expect(await openWithForm('/')).toBeNull()
    // Signed in as the guards see it, although the refresh token's cookie is gone (expired): the app
    // opens the sales screen first, so the form would be lost under it.
    Cookies.remove('refreshToken', { path: '/' })
    expect(await openWithForm('/')).toBeNull()
    setLoggedIn(false)
    expect(await openWithForm('/stores')).toBeNull()
  })
})

describe("index.html's login form, taken over by the app's", () => {
  // A visitor not signed in: nothing on the device.
  beforeEach(() => {
    localStorage.clear()
    for (const name of Object.keys(Cookies.get())) Cookies.remove(name, { path: '/' })
  })

  /** index.html's form as src/shell/paint-first.ts leaves it for a visitor not signed in. */
  function shownShell(typed: string) {
    const shell = document.createElement('main')
    shell.className = 'login-main login-shell'
    shell.innerHTML =
      '<form><label for="shell-phone">휴대폰 번호</label><input id="shell-phone" name="phone" type="tel" /></form>'
    document.body.append(shell)
    const input = shell.querySelector('input') as HTMLInputElement
    input.value = typed
    input.focus()
    input.setSelectionRange(3, 3)
    return shell
  }

  it('gives way to the app form, which takes over the number typed, the focus and the caret', async () => {
    const shell = shownShell('0101234')
    render(<LoginForm onSignedIn={() => {}} />)
    expect(shell.isConnected).toBe(false)
    const phone = phoneField() as HTMLInputElement
    expect(phone.value).toBe('0101234')
    expect(phone).toHaveFocus()
    expect([phone.selectionStart, phone.selectionEnd]).toEqual([3, 3])
    // Typing goes on where the caret was.
    await userEvent.setup().keyboard('9')
    expect(phone.value).toBe('01091234')
  })

  it('a press of its code button with a full number is made again by the app form: the code is asked for', async () => {
    const fake = server()
    const shell = shownShell('010-1234-5678')
    shell.dataset.requested = 'true'
    render(<LoginForm onSignedIn={() => {}} />)
    await vi.waitFor(() => expect(codeField()).toHaveFocus())
    expect(fake.count('PUT /api/v0/user/phone')).toBe(1)
    expect(fake.calls[0]?.body).toEqual({ phone: '01012345678' })
    expect(requestButton()).toHaveTextContent('03 : 00')
  })

  it('is not read while hidden (a signed-in visitor), and the app form starts empty', () => {
    const shell = shownShell('0101234')
    shell.hidden = true
    render(<LoginForm onSignedIn={() => {}} />)
    expect(shell.isConnected).toBe(false)
    expect((phoneField() as HTMLInputElement).value).toBe('')
    expect(phoneField()).not.toHaveFocus()
  })
})
