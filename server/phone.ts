import { ApiError, messages } from './errors.ts'

/** Digits only; a Korean mobile number has 10 or 11 of them and starts with 01. */
export function normalizePhone(phone: string): string {
  const digits = phone.replace(/[\s-]/g, '')
  if (!/^01[0-9]{8,9}$/.test(digits)) throw new ApiError(400, messages.phone)
  return digits
}
