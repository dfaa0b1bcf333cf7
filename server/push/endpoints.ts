// Which push services a subscription may name (docs/product.md decision 90): the browsers' own, plus
// the origins of PUSH_ALLOWED_ORIGINS (a self-hosted push service, tests). Anything else is refused,
// so that the server never posts to an address a client chose (an internal service, say).
import { ECDH } from 'node:crypto'

/** The browsers' push services, by host and its subdomains: Chrome, Firefox, Safari, Edge. */
const knownPushHosts = [
  'fcm.googleapis.com',
  'push.services.mozilla.com',
  'push.apple.com',
  'notify.windows.com',
]

/** Whether a subscription's endpoint may be used: https, no credentials, a known service or an allowed origin. */
export function isAllowedEndpoint(endpoint: string, allowedOrigins: readonly string[]): boolean {
  let url: URL
  try {
    url = new URL(endpoint)
  } catch {
    return false
  }
  // Only an address in the one form the URL standard writes it: the push library reads it with Node's
  // older parser, which reads some other forms (a backslash, say) as another host than this one does.
  if (url.href !== endpoint) return false
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '') return false
  if (allowedOrigins.includes(url.origin)) return true
  if (url.port !== '') return false
  const host = url.hostname.toLowerCase()
  return knownPushHosts.some((known) => host === known || host.endsWith(`.${known}`))
}

/** Whether a base64url text decodes to exactly `bytes` bytes (and, for a public key, is an uncompressed point). */
export function isKeyOfLength(text: string, bytes: number, firstByte?: number): boolean {
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(text)) return false
  const decoded = Buffer.from(text.replace(/=+$/, ''), 'base64url')
  return decoded.length === bytes && (firstByte === undefined || decoded[0] === firstByte)
}

/** Whether a base64url public key is a point of P-256 (65 bytes may not be: every send to it would fail). */
export function isP256Point(text: string): boolean {
  try {
    ECDH.convertKey(Buffer.from(text.replace(/=+$/, ''), 'base64url'), 'prime256v1')
    return true
  } catch {
    return false
  }
}
