import { mobileNumberOf } from '../../contract/phone.ts'
import { ApiError, messages } from '../errors.ts'

/** The digits of a Korean mobile number (contract/phone.ts); anything else is a 400. */
export function normalizePhone(phone: string): string {
  const digits = mobileNumberOf(phone)
  if (digits === null) throw new ApiError(400, messages.phone)
  return digits
}
