// The "known device" credential: an HttpOnly cookie the server sets on every successful sign-in, so
// that the owner's own browser can still ask for codes and sign in while strangers have closed the
// number to everyone else (see the limits at the top of otp.ts).
//
// The cookie holds a random device id and, for each of the last KNOWN_PHONES_PER_DEVICE numbers
// signed in on this browser (a shared store-front device serves several owners), a MAC of the number
// and the device id under a key derived from the server secret. Nothing in it is personal data in
// clear: a number cannot be read back from its MAC, and only the server can make one. A MAC copied
// under another device id, or made for another number, is not honoured.
//
// It survives logout on purpose: it holds no records and signs nobody in (a code sent by SMS is still
// needed), and it is what keeps the owner's own device usable while someone is trying to lock the
// number. A sign-in never succeeds for an unregistered number, so no browser ever holds one for it.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { cookieValues } from './cookies.ts'

export const knownDeviceCookie = 'knownDevice'
/** Only the sign-in routes read it. */
export const knownDevicePath = '/api/v0/user'
/** The longest lifetime browsers keep a cookie (Chromium caps it at 400 days). */
const knownDeviceMaxAgeSeconds = 400 * 24 * 60 * 60
/** Numbers remembered per browser, most recent first. */
export const knownPhonesPerDevice = 8

/** 16 bytes as base64url: 22 characters. */
const token = /^[A-Za-z0-9_-]{22}$/

interface Credential {
  deviceId: string
  macs: string[]
}

/** A cookie value as `deviceId.mac.mac…`, or undefined when it is not one. */
function parse(value: string): Credential | undefined {
  const [deviceId = '', ...macs] = value.split('.')
  if (!token.test(deviceId) || macs.length > knownPhonesPerDevice || !macs.every((mac) => token.test(mac))) {
    return undefined
  }
  return { deviceId, macs }
}

export function createKnownDevices(secret: string) {
  const key = createHash('sha256').update(`known devices:${secret}`).digest()
  const mac = (phone: string, deviceId: string) =>
    createHmac('sha256', key).update(`known-device:${phone}:${deviceId}`).digest().subarray(0, 16)

  const credentials = (cookieHeader: string | undefined) =>
    cookieValues(cookieHeader, knownDeviceCookie)
      .map(parse)
      .filter((credential) => credential !== undefined)

  return {
    /** Whether the Cookie header holds a credential the server made for this (normalised) number. */
    isKnown(cookieHeader: string | undefined, phone: string): boolean {
      return credentials(cookieHeader).some(({ deviceId, macs }) => {
        const expected = mac(phone, deviceId)
        return macs.some((given) => timingSafeEqual(Buffer.from(given, 'base64url'), expected))
      })
    },

    /**
     * The cookie's value after a sign-in of this number: the browser's device id (a new one if it has
     * none), this number's MAC first, then the other numbers it held, up to knownPhonesPerDevice.
     */
    afterSignIn(cookieHeader: string | undefined, phone: string): string {
      const [held] = credentials(cookieHeader)
      const deviceId = held?.deviceId ?? randomBytes(16).toString('base64url')
      const own = mac(phone, deviceId).toString('base64url')
      const others = (held?.macs ?? []).filter((given) => given !== own)
      return [deviceId, own, ...others].slice(0, 1 + knownPhonesPerDevice).join('.')
    },
  }
}

export type KnownDevices = ReturnType<typeof createKnownDevices>

/** The Set-Cookie header for the value; Secure when the request came over https. */
export function knownDeviceSetCookie(value: string, secure: boolean) {
  return [
    `${knownDeviceCookie}=${value}`,
    `Path=${knownDevicePath}`,
    `Max-Age=${knownDeviceMaxAgeSeconds}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(secure ? ['Secure'] : []),
  ].join('; ')
}
