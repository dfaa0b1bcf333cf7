// The "known device" credential: an HttpOnly cookie the server sets on every successful sign-in, so
// that the owner's own browser can still ask for codes and sign in while strangers have closed the
// number to everyone else (see the limits at the top of otp.ts).
//
// The cookie holds a random device id and, for each of the last KNOWN_PHONES_PER_DEVICE numbers
// signed in on this browser (a shared store-front device serves several owners), a MAC of the number,
// its generation (epoch) and the device id under a key derived from the server secret. Nothing in it is
// personal data in clear: a number cannot be read back from its MAC, and only the server can make one. A
// MAC copied under another device id, made for another number, or made before the number's generation
// was bumped (an administrator's `sign-out` or `remove-user`, or a sign-in ended by reuse of a spent
// refresh token: schema.ts, knownDeviceEpochs) is not honoured.
//
// The device id alone, with no MAC, is what a code request sets in a browser that has no id yet: a
// browser's sign-in code is bound to its id (otp.ts), so that another browser behind the same address
// can neither replace nor end it. It proves nothing and exempts from nothing.
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

/** How many earlier generations of a number's MAC a sign-in still recognises, to drop them from the cookie. */
const earlierEpochsDropped = 16

/** A new random device id. */
export const newDeviceId = () => randomBytes(16).toString('base64url')

export function createKnownDevices(secret: string) {
  const key = createHash('sha256').update(`known devices:${secret}`).digest()
  // Generation 0 is the MAC as it was before there were generations, so credentials made then still count.
  const mac = (phone: string, deviceId: string, epoch: number) =>
    createHmac('sha256', key)
      .update(
        epoch === 0 ? `known-device:${phone}:${deviceId}` : `known-device:${phone}:${epoch}:${deviceId}`,
      )
      .digest()
      .subarray(0, 16)

  const credentials = (cookieHeader: string | undefined) =>
    cookieValues(cookieHeader, knownDeviceCookie)
      .map(parse)
      .filter((credential) => credential !== undefined)

  /**
   * The device id under which the Cookie header holds a credential the server made for this
   * (normalised) number in its current generation `epoch`, or undefined.
   */
  const knownId = (cookieHeader: string | undefined, phone: string, epoch = 0): string | undefined =>
    credentials(cookieHeader).find(({ deviceId, macs }) => {
      const expected = mac(phone, deviceId, epoch)
      return macs.some((given) => timingSafeEqual(Buffer.from(given, 'base64url'), expected))
    })?.deviceId

  return {
    knownId,

    /** The browser's device id (the first well-formed cookie's), whether or not it is known to any number. */
    deviceIdOf(cookieHeader: string | undefined): string | undefined {
      return credentials(cookieHeader)[0]?.deviceId
    },

    /**
     * The device ids that hold a MAC: those it may be a known device under, of some number (none: it is
     * no known device of any).
     */
    idsWithMacs(cookieHeader: string | undefined): string[] {
      return credentials(cookieHeader)
        .filter(({ macs }) => macs.length > 0)
        .map(({ deviceId }) => deviceId)
    },

    /** Whether the Cookie header holds a credential the server made for this (normalised) number. */
    isKnown: (cookieHeader: string | undefined, phone: string, epoch = 0) =>
      knownId(cookieHeader, phone, epoch) !== undefined,

    /**
     * The cookie's value after a sign-in of this number: the browser's device id (a new one if it has
     * none), this number's MAC first, then the other numbers it held, up to knownPhonesPerDevice (MACs
     * of this number from earlier generations are dropped: they are worth nothing).
     */
    afterSignIn(cookieHeader: string | undefined, phone: string, epoch = 0): string {
      const [held] = credentials(cookieHeader)
      const deviceId = held?.deviceId ?? newDeviceId()
      const own = mac(phone, deviceId, epoch).toString('base64url')
      const stale = new Set(
        Array.from({ length: Math.min(epoch, earlierEpochsDropped) }, (_, i) =>
          mac(phone, deviceId, epoch - 1 - i).toString('base64url'),
        ),
      )
      const others = (held?.macs ?? []).filter((given) => given !== own && !stale.has(given))
      return [deviceId, own, ...others].slice(0, 1 + knownPhonesPerDevice).join('.')
    },
  }
}

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
