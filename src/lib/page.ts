// The browser's dialogs and reload, in one object that tests can replace, and the one way the app
// reloads itself.
export const page = {
  reload: () => window.location.reload(),
  alert: (message: string) => window.alert(message),
  confirm: (message: string) => window.confirm(message),
}

/** A call answered nothing: the code request, the sign-in, the profile, the token exchange, another. */
export type EmptyAnswerRule = 'empty:code' | 'empty:sign-in' | 'empty:profile' | 'empty:token' | 'empty:other'

/**
 * The situations in which the app reloads itself, each bounded on its own: an empty answer of each
 * call, a sign-in call the server refused, and a session that ended.
 */
export type ReloadRule = EmptyAnswerRule | 'refused' | 'signed-out'

const guardKey = 'reload-guard'
/** A rule reloads the page at most once in this long. */
export const reloadGuardMs = 60_000

/**
 * Reloads the page for `rule`, unless that rule already reloaded it within the last minute: a server
 * that keeps answering oddly must not make the app reload in a loop. The time of each rule's reload is
 * kept in session storage, which survives the reload (and only lives as long as the tab). Returns
 * false when it did not reload; the caller then shows the login screen or an error the owner can act
 * on. Where the times cannot be read or remembered, it never reloads: a reload it cannot count could
 * loop.
 */
export function reloadFor(rule: ReloadRule): boolean {
  const now = Date.now()
  try {
    const times = JSON.parse(sessionStorage.getItem(guardKey) ?? '{}') as Record<string, number>
    // Either way round: a clock set back a little must not let a rule reload again at once.
    if (Math.abs(now - (times[rule] ?? 0)) < reloadGuardMs) return false
    times[rule] = now
    sessionStorage.setItem(guardKey, JSON.stringify(times))
  } catch {
    return false
  }
  page.reload()
  return true
}
