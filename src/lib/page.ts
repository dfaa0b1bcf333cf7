// The browser's dialogs and reload, in one object that tests can replace, and the one way the app
// reloads itself.
export const page = {
  reload: () => window.location.reload(),
  alert: (message: string) => window.alert(message),
  confirm: (message: string) => window.confirm(message),
}

/** The situations in which the app reloads itself: each is bounded on its own. */
export type ReloadRule =
  | 'code-request-empty'
  | 'sign-in-empty'
  | 'profile-empty'
  | 'token-exchange-empty'
  | 'sign-in-refused'
  | 'signed-out'

const guardKey = 'reload-guard'
/** A rule reloads the page at most once in this long. */
export const reloadGuardMs = 60_000

function reloadTimes(): Record<string, number> {
  try {
    const stored: unknown = JSON.parse(sessionStorage.getItem(guardKey) ?? '{}')
    return stored && typeof stored === 'object' ? (stored as Record<string, number>) : {}
  } catch {
    return {}
  }
}

/**
 * Reloads the page for `rule`, unless that rule already reloaded it within the last minute: a server
 * that keeps answering oddly must not make the app reload in a loop. The time of each rule's reload is
 * kept in session storage, which survives the reload (and only lives as long as the tab). Returns
 * false when it did not reload; the caller then shows the login screen or an error the owner can act
 * on. Where the time cannot be remembered, it never reloads: a reload it cannot count could loop.
 */
export function reloadFor(rule: ReloadRule): boolean {
  const now = Date.now()
  const times = reloadTimes()
  const last = times[rule]
  // Either way round: a clock set back a little must not let a rule reload again at once.
  if (typeof last === 'number' && Math.abs(now - last) < reloadGuardMs) return false
  try {
    sessionStorage.setItem(guardKey, JSON.stringify({ ...times, [rule]: now }))
  } catch {
    return false
  }
  page.reload()
  return true
}
