// The login screen's two steps: the phone number with 'get verification code', then the code with
// 'Login'. One step is active at a time; Enter in a field presses its button.
import { type FormEvent, useEffect, useLayoutEffect, useRef, useState } from 'react'
import { isPhoneComplete } from '../../../contract/phone.ts'
import { takeOverLoginShell } from '../../shell/login-shell.ts'
import { countdownLabel, durationText, useCountdown } from './countdown.ts'
import { isCodeComplete, requestCode, signIn } from './sign-in.ts'

/** Focus moves to the code field 9 ms after a code was requested. */
const focusDelayMs = 9

export function LoginForm({ onSignedIn }: { onSignedIn(): void }) {
  const [phone, setPhone] = useState('')
  const phoneInput = useRef<HTMLInputElement>(null)
  const phoneForm = useRef<HTMLFormElement>(null)
  /** The number with which index.html's code button was pressed before this form took its place. */
  const pressedBeforeApp = useRef<string | null>(null)
  const [code, setCode] = useState('')
  const [busy, setBusy] = useState(false)
  const countdown = useCountdown()
  const codeInput = useRef<HTMLInputElement>(null)

  // Before the first paint, this form takes the place of index.html's, in one step: its number is
  // read and its form removed (read while rendering, a digit typed before the commit would be lost),
  // and this field gets the number, the focus and the caret at once, so that a phone's keyboard has no
  // moment without a focused field to close on. The state follows.
  useLayoutEffect(() => {
    const typed = takeOverLoginShell()
    const input = phoneInput.current
    if (!typed || !input) return
    input.value = typed.phone
    if (typed.focused) {
      input.focus()
      input.setSelectionRange(typed.selectionStart, typed.selectionEnd)
    }
    if (typed.requested) pressedBeforeApp.current = typed.phone
    setPhone(typed.phone)
  }, [])
  // A press of index.html's code button is made again here, once, after the render that gave this
  // form the number (its submit handler then holds it; a ref, not state, so that React's development
  // double effects cannot press twice).
  useEffect(() => {
    if (pressedBeforeApp.current !== phone) return
    pressedBeforeApp.current = null
    phoneForm.current?.requestSubmit()
  })

  // A full number and no countdown running; then a running countdown and 4 digits.
  const canRequest = isPhoneComplete(phone) && !countdown.running && !busy
  const canSignIn = countdown.running && isCodeComplete(code) && !busy

  async function onRequestCode(event: FormEvent) {
    event.preventDefault()
    if (!canRequest) return
    setBusy(true)
    const validFor = await requestCode(phone)
    setBusy(false)
    if (validFor === null) return
    countdown.start(validFor)
    window.setTimeout(() => codeInput.current?.focus(), focusDelayMs)
  }

  async function onSignIn(event: FormEvent) {
    event.preventDefault()
    if (!canSignIn) return
    setBusy(true)
    const signedIn = await signIn(phone, code)
    setBusy(false)
    if (signedIn) onSignedIn()
  }

  return (
    <div className="login-box">
      <form className="login-step" ref={phoneForm} onSubmit={onRequestCode} noValidate>
        <label htmlFor="phone">휴대폰 번호</label>
        <input
          id="phone"
          name="phone"
          ref={phoneInput}
          type="tel"
          inputMode="numeric"
          autoComplete="tel"
          placeholder="01012345678"
          maxLength={13}
          value={phone}
          disabled={countdown.running}
          onChange={(event) => setPhone(event.currentTarget.value)}
        />
        <button type="submit" className="wide-button" disabled={!canRequest}>
          {countdown.running ? (
            countdownLabel(countdown.remaining)
          ) : (
            // English words in a Korean page are marked, so that a screen reader pronounces them (WCAG 3.1.2).
            <span lang="en">get verification code</span>
          )}
        </button>
      </form>
      <form className="login-step" onSubmit={onSignIn} noValidate>
        <label htmlFor="code">인증번호</label>
        <input
          id="code"
          name="code"
          ref={codeInput}
          inputMode="numeric"
          autoComplete="one-time-code"
          placeholder="0000"
          maxLength={4}
          value={code}
          disabled={!countdown.running}
          onChange={(event) => setCode(event.currentTarget.value)}
        />
        <button type="submit" className="wide-button" disabled={!canSignIn}>
          <span lang="en">Login</span>
        </button>
      </form>
      <p className="visually-hidden" role="status">
        {countdown.running
          ? `인증번호를 보냈습니다. ${durationText(countdown.length)} 안에 입력해 주세요.`
          : ''}
      </p>
    </div>
  )
}
