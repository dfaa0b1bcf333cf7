import { keptTotalsClass, loginShellSelector } from './names.ts'

/**
 * Removes whatever the first painter (paint-first.ts) painted: index.html's login form and the kept
 * totals. The one way they leave the page: when the router has rendered its first screen (main.tsx),
 * when the app's login form takes the place of index.html's (having read what was typed first), and
 * when the device is wiped (lib/session-state.ts: the totals of a session that has ended). The painter
 * paints one or the other, never both.
 */
export function removeShell() {
  document.querySelector(loginShellSelector)?.remove()
  document.querySelector(`.${keptTotalsClass}`)?.remove()
}
