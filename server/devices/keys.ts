// The secrets of a device: its pairing code and its key, and how they are stored (their SHA-256 only).
//
// A key is `dk_` and 43 base64url characters (256 random bits), so it is told from a user's access
// token (a JWT, `eyJ…`) by its first three characters: a device key is refused on every user call (the
// token check cannot read it) and a user token on every device call (`isDeviceKey`), each with 401.
// A pairing code is 10 characters of Crockford's base32 (no I, L, O, U: nothing to misread), shown as
// `XXXXX-XXXXX`: 50 random bits. Typed back, case, spaces and hyphens do not matter, and I, L and O
// are read as 1, 1 and 0.
import { createHash, randomBytes, randomInt } from 'node:crypto'

const keyPrefix = 'dk_'
const keyPattern = /^dk_[A-Za-z0-9_-]{43}$/

export const newDeviceKey = () => `${keyPrefix}${randomBytes(32).toString('base64url')}`

export const isDeviceKey = (text: string) => keyPattern.test(text)

/** What the database keeps of a key or a code. */
export const secretHash = (secret: string) => createHash('sha256').update(secret).digest('base64url')

const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
const codeLength = 10

export function newPairingCode() {
  let code = ''
  for (let i = 0; i < codeLength; i++) code += alphabet[randomInt(alphabet.length)]
  return `${code.slice(0, 5)}-${code.slice(5)}`
}

/** The code as typed, in its stored form, or null when it cannot be one. */
export function normalizedPairingCode(typed: string): string | null {
  const code = typed.toUpperCase().replace(/[\s-]/g, '').replace(/[IL]/g, '1').replace(/O/g, '0')
  if (code.length !== codeLength) return null
  for (const char of code) if (!alphabet.includes(char)) return null
  return code
}
