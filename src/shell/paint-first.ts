// What a slow phone shows before the app's code has arrived and run, painted at once, and what starts
// the app. index.html has it inline right after #root (build/index-html.ts), and renders no frame
// before it: it paints as soon as #root has been read, so the page's first frame shows what it painted,
// and then starts the app (after that frame when it shows the kept totals); removeShell (remove-shell.ts) removes
// what it painted as soon as the router has rendered the first screen.
//
// - To a visitor not signed in: index.html's login form (it is hidden until this says so), usable at
//   once: on 3G the app's code takes about 3 s to arrive on a first visit, and the phone number can be
//   typed, and the code asked for, meanwhile.
// - On a repeat visit to the sales screen: the two totals it last showed, marked as being refreshed
//   (on a slow phone the app's code takes about a second to arrive from the service worker's cache and
//   run, and the owner wants the figure, not a blank page). Only what the screen about to open would
//   show: the sales screen (`/`), someone signed in (and the refresh token's cookie), the store and period
//   the route opens for the address (figures/sales-search.ts: the address's, or the remembered store and
//   this month, UTC); the app then shows the same figures from the device, and fresher ones next.
//
// It loads nothing at run time: the small pure modules it imports (the names it shares with the app,
// the phone rule and src/figures/'s address rule) are built into it, a copy of its own
// (build/index-html.ts), so it is one small file.
import { isPhoneComplete } from '../../contract/phone.ts'
import { salesSearchOf } from '../figures/sales-search.ts'
import { readCookie } from './cookies.ts'
import type { KeptTotalsOfSignIn } from './kept-totals.ts'
import {
  keptTotalsClass,
  keptTotalsKey,
  loginPath,
  loginShellSelector,
  refreshTokenCookie,
  salesPath,
  signInIdCookie,
  storesStorageKey,
  userStorageKey,
} from './names.ts'

// (A classic script's top-level names land on `window`: the build wraps all of it in one function.)

function read<T>(key: string): T | null {
  try {
    return JSON.parse(localStorage.getItem(key) ?? 'null') as T | null
  } catch {
    return null
  }
}

/** The stores the device remembers (lib/session-state.ts): the user's, and the selected one. */
const stores = read<{ state?: { stores?: { id?: number }[]; store?: { id?: number } | null } }>(
  storesStorageKey,
)?.state

/**
 * The store, year and month the sales screen will open with: the route's reading of the address, and
 * its store when it is one of the user's, else the remembered one (routes/_authed/index.tsx).
 */
function selection() {
  const { store, year, month } = salesSearchOf(location.search)
  const listed = stores?.stores?.some((option) => option.id === store)
  return { storeId: listed ? store : stores?.store?.id, year, month }
}

function element(tag: string, className: string, text?: string) {
  const made = document.createElement(tag)
  made.className = className
  if (text !== undefined) made.textContent = text
  return made
}

/**
 * Paints the kept totals, only where the app will show the same: for the sign-in they were shown to
 * (the cookie `signInId`; another user's sign-in, or none, gets nothing), for a store the user still
 * has, and for the store and period the sales screen opens.
 */
function paintKeptTotals(signedIn: boolean, cookies: string) {
  const kept = read<KeptTotalsOfSignIn>(keptTotalsKey)
  if (!kept || !signedIn || location.pathname !== salesPath || document.querySelector(`.${keptTotalsClass}`))
    return
  if (!kept.signInId || readCookie(signInIdCookie, cookies) !== kept.signInId) return
  if (!stores?.stores?.some((store) => store.id === kept.storeId)) return
  const { storeId, year, month } = selection()
  if (storeId !== kept.storeId || year !== kept.year || month !== kept.month) return

  const section = element('section', keptTotalsClass)
  section.setAttribute('aria-label', `${kept.storeName} 매출`)
  section.setAttribute('aria-busy', 'true')
  section.append(element('p', 'kept-totals-store', kept.storeName))
  const summary = element('div', 'summary')
  for (const [label, total] of [
    [kept.yearLabel, kept.yearTotal],
    [kept.monthLabel, kept.monthTotal],
  ] as const) {
    const box = element('div', 'summary-box')
    box.append(element('h2', '', label), element('p', 'summary-total', total))
    summary.append(box)
  }
  const note = element('p', 'kept-totals-note', `새로 고치는 중 · ${kept.asOf}`)
  note.setAttribute('role', 'status')
  section.append(summary, note)
  document.getElementById('root')?.before(section)
}

/**
 * Shows index.html's login form to a visitor not signed in who opens the login screen (or the sales
 * screen, which sends them there); anywhere else it is removed. The app's login form takes over what
 * was typed into it (login-shell.ts).
 */
function showLoginForm(signedIn: boolean) {
  const form = document.querySelector<HTMLElement>(loginShellSelector)
  if (!form) return
  if (signedIn || (location.pathname !== loginPath && location.pathname !== salesPath)) {
    form.remove()
    return
  }
  form.hidden = false
  // Its code button works as the app's does: enabled by a full number (contract/phone.ts, the app's
  // rule, built in), and a press, or Enter, is kept for the app's form, which makes it again when it
  // takes over.
  const step = form.querySelector('form')
  const phone = step?.querySelector('input')
  const button = step?.querySelector('button')
  if (!step || !phone || !button) return
  phone.addEventListener('input', () => {
    button.disabled = !isPhoneComplete(phone.value)
  })
  step.addEventListener('submit', (event) => {
    event.preventDefault()
    if (isPhoneComplete(phone.value)) form.dataset.requested = 'true'
  })
}

// Signed in as the app's guards see it (the user state in local storage, lib/session-state.ts): the
// login form is for the others. The kept totals want the refresh token's cookie too, without which
// the app's start-up check ends the session.
/**
 * Starts the app: index.html's module script and the chunks it preloads, which the build moved into
 * this script's `data-app` and `data-preload` (build/index-html.ts), once. The browser compiles a
 * chunk as soon as it has arrived, and the app's own chunk takes a third of a second and more on a slow
 * phone: started before the first frame, it held back the painted totals by as much.
 */
const source = document.currentScript?.dataset
let started = false
function startApp() {
  if (started || !source?.app) return
  started = true
  for (const href of source.preload?.split(' ').filter(Boolean) ?? []) {
    const link = document.createElement('link')
    link.rel = 'modulepreload'
    link.crossOrigin = ''
    link.href = href
    document.head.append(link)
  }
  const script = document.createElement('script')
  script.type = 'module'
  script.crossOrigin = ''
  script.src = source.app
  document.head.append(script)
}

/** Paints what there is to paint; true when it painted the kept totals. */
function paint() {
  // The app has drawn its screen already: what it shows is the app's.
  if (document.getElementById('root')?.hasChildNodes()) return false
  const loggedIn = read<{ state?: { isLoggedIn?: unknown } }>(userStorageKey)?.state?.isLoggedIn === true
  showLoginForm(loggedIn)
  // Read once: every read of document.cookie asks the browser's process, synchronously.
  const cookies = document.cookie
  paintKeptTotals(loggedIn && readCookie(refreshTokenCookie, cookies) !== undefined, cookies)
  return document.querySelector(`.${keptTotalsClass}`) !== null
}

/** Paints, then starts the app: at once, or after the next frame when that frame shows the totals. */
let handled = false
function paintThenStart() {
  if (handled) return
  handled = true
  let painted = false
  try {
    painted = paint()
  } finally {
    if (!painted) startApp()
    else {
      requestAnimationFrame(() => setTimeout(startApp))
      // A page not shown has no frames.
      setTimeout(startApp, 500)
    }
  }
}

// index.html has this inline right after #root (build/index-html.ts): it paints there and then (what
// it paints and index.html's login form come before it). Anywhere else, at the end of the parse.
if (document.getElementById('root')) paintThenStart()
else document.addEventListener('DOMContentLoaded', paintThenStart)
