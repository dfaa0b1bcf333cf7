// Where the login screen sends the owner once signed in: the page a signed-out visit asked for
// (`/login?redirect=%2Falerts%3Fstore%3D2`), when it is a page of this app. Anything else is no target
// and the sales screen opens, as without one: another origin, a protocol-relative `//host` (or what a
// browser reads as one: a backslash, a tab or newline, `/..//host`), the login screen itself, and `/`.

/** A stand-in origin to resolve the target against: a target that leaves it is not one of ours. */
const ours = 'http://app.invalid'

/** The app path to open after signing in (path, query and hash), or undefined for the sales screen. */
export function returnTarget(asked: unknown): string | undefined {
  // Only printable characters but the backslash: browsers drop tabs and newlines from an address and
  // read a backslash as a slash, which could make `//host` of it.
  if (typeof asked !== 'string' || asked[1] === '/' || !/^\/[!-[\]-~]*$/.test(asked)) return
  const url = new URL(asked, ours)
  const target = url.pathname + url.search + url.hash
  if (url.origin !== ours || target.startsWith('//') || target === '/' || /^\/login(\/|\?|#|$)/.test(target))
    return
  return target
}
