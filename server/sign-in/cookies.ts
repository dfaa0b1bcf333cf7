// Reading the request's Cookie header. The server has no cookie plugin: it reads two cookies only,
// the known-device credential (known-device.ts) and the app's refresh attempt key (tokens.ts).

/** The values of every cookie called `name` in a Cookie header (a browser may send several, by path). */
export function cookieValues(header: string | undefined, name: string): string[] {
  if (!header) return []
  return header
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair.startsWith(`${name}=`))
    .map((pair) => pair.slice(name.length + 1))
}
