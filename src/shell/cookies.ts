// The app's cookies, read and written by one small module that the first painter (paint-first.ts) has
// built in and the app imports (lib/tokens.ts): only our own cookies, whose values are tokens and hex
// ids, encoded as js-cookie did, so a cookie written before reads the same.

/**
 * A cookie's value, or undefined when there is none; from `cookies` when given (`document.cookie`
 * read once for several: every read of it asks the browser's process, synchronously).
 */
export function readCookie(name: string, cookies = document.cookie): string | undefined {
  const raw = cookies
    .split('; ')
    .find((pair) => pair.startsWith(`${name}=`))
    ?.slice(name.length + 1)
  try {
    return raw === undefined ? raw : decodeURIComponent(raw)
  } catch {
    return raw
  }
}

/** Writes a cookie for the whole site, same-site only, secure over https, for `days` (-1 removes it). */
export function writeCookie(name: string, value: string, days: number) {
  const expires = new Date(Date.now() + days * 864e5).toUTCString()
  const secure = window.location.protocol === 'https:' ? '; secure' : ''
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is missing from Firefox before 140 and Safari before 18.4.
  document.cookie = `${name}=${encodeURIComponent(value)}; path=/; expires=${expires}; sameSite=strict${secure}`
}
