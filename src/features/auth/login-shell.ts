// index.html's login form, shown by src/paint-first.ts before the app's code has run, so that a slow
// phone's owner can type the phone number at once. The app's login form takes it over when it first
// renders: what was typed, the focus with the caret where it was, and a press of its code button.

/** What the owner typed into index.html's login form before the app ran. */
export interface TypedBeforeApp {
  phone: string
  /** Whether the phone field had the focus, and the caret's place in it. */
  focused: boolean
  selectionStart: number | null
  selectionEnd: number | null
  /** Whether its code button was pressed (or Enter given) with a full number. */
  requested: boolean
}

const shell = () => document.querySelector<HTMLElement>('.login-shell')

/** What was typed into index.html's login form while it was shown; null when it is not shown. */
export function typedBeforeApp(): TypedBeforeApp | null {
  const form = shell()
  const phone = form?.querySelector<HTMLInputElement>('input[name="phone"]')
  if (!form || form.hidden || !phone) return null
  return {
    phone: phone.value,
    focused: document.activeElement === phone,
    selectionStart: phone.selectionStart,
    selectionEnd: phone.selectionEnd,
    requested: form.dataset.requested === 'true',
  }
}

/** Removes index.html's login form: the app's form stands in its place. */
export function removeLoginShell() {
  shell()?.remove()
}
