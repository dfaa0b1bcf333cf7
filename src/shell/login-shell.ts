// index.html's login form, shown by paint-first.ts before the app's code has run, so that a slow
// phone's owner can type the phone number at once. The app's login form takes it over when it first
// renders (takeOverLoginShell): what was typed, the focus with the caret where it was, and a press of
// its code button; then the shell is removed (remove-shell.ts).
import { loginShellSelector } from './names.ts'
import { removeShell } from './remove-shell.ts'

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

/**
 * The app's login form takes index.html's place: what was typed into it (null when it was not shown),
 * read before the shell is removed.
 */
export function takeOverLoginShell(): TypedBeforeApp | null {
  const form = document.querySelector<HTMLElement>(loginShellSelector)
  const phone = form?.querySelector<HTMLInputElement>('input[name="phone"]')
  const typed =
    form && !form.hidden && phone
      ? {
          phone: phone.value,
          focused: document.activeElement === phone,
          selectionStart: phone.selectionStart,
          selectionEnd: phone.selectionEnd,
          requested: form.dataset.requested === 'true',
        }
      : null
  removeShell()
  return typed
}
