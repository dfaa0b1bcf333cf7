// The phone number rule (contract/phone.ts), one owner for the server's sign-in, the app's login form
// and the first painter: the server takes Korean mobile numbers; the code button is looser on purpose
// (docs/product.md decision 55), so it never stays grey for a number the server takes, and a number
// it lets through that the server refuses gets the server's Korean message.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isPhoneComplete, mobileNumberOf, phoneDigits } from '../../contract/phone.ts'
import { messages } from '../../server/errors.ts'
import { normalizePhone } from '../../server/sign-in/phone.ts'
import { sharedTestApp } from './test-app.ts'

const current = sharedTestApp()

/** What an owner may type: digits, hyphens, spaces, and now and then something else. */
const typed = fc
  .array(fc.constantFrom('0', '1', '2', '5', '9', '-', ' ', 'o', '+'), { maxLength: 16 })
  .map((chars) => chars.join(''))

describe('the phone rule', () => {
  it('takes 10 or 11 digits starting with 01 on the server, hyphens and spaces ignored', () => {
    for (const [number, digits] of [
      ['01012345678', '01012345678'],
      ['010-1234-5678', '01012345678'],
      ['010 1234 567', '0101234567'],
      ['0111234567', '0111234567'],
    ] as const) {
      expect(mobileNumberOf(number), number).toBe(digits)
      expect(normalizePhone(number), number).toBe(digits)
    }
    for (const number of ['0212345678', '010123456', '010123456789', '01o12345678', '', '+821012345678']) {
      expect(mobileNumberOf(number), number).toBeNull()
      expect(() => normalizePhone(number), number).toThrow(messages.phone)
    }
  })

  it('enables the code button for 10 or 11 digits, a landline too', () => {
    for (const number of ['01012345678', '010-1234-5678', '0101234567', '0212345678', '02-1234-5678'])
      expect(isPhoneComplete(number), number).toBe(true)
    for (const number of ['010123456', '010123456789', '01o12345678', '', '010-1234-567o'])
      expect(isPhoneComplete(number), number).toBe(false)
  })

  it('never leaves the button grey for a number the server takes, and the server is sent its digits', () => {
    fc.assert(
      fc.property(typed, (number) => {
        const digits = mobileNumberOf(number)
        if (digits !== null) {
          expect(isPhoneComplete(number)).toBe(true)
          expect(digits).toBe(phoneDigits(number))
        }
      }),
      { numRuns: 2000 },
    )
  })

  it('answers a number the button lets through but the server refuses with its Korean 400', async () => {
    const response = await current.app.inject({
      method: 'PUT',
      url: '/api/v0/user/phone',
      payload: { phone: '02-1234-5678' },
    })
    expect(response.statusCode).toBe(400)
    expect(response.json()).toEqual({ message: messages.phone })
  })
})
