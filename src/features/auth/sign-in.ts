// The sign-in steps of SPEC.md 4, with the alerts and reloads of its error catalogue (section 8).
import type { PhoneAnswer, ProfileAnswer, SignAnswer } from '../../../contract/api.ts'
import { ApiError, OfflineError, requestJson } from '../../lib/api.ts'
import { page } from '../../lib/page.ts'
import { applyProfile, clearDevice, fetchProfile, useUserStore } from '../../lib/session.ts'
import { setTokens } from '../../lib/tokens.ts'

export const noPermission = 'You do not have permission'

/** Digits only: hyphens and spaces are ignored (DECISIONS.md). */
export const phoneDigits = (phone: string) => phone.replace(/[\s-]/g, '')
export const isPhoneComplete = (phone: string) => /^[0-9]{10,11}$/.test(phoneDigits(phone))
export const isCodeComplete = (code: string) => /^[0-9]{4}$/.test(code.trim())

/**
 * A call that fails shows the server's message and the page reloads (SPEC.md 8). Without any answer
 * (offline) there is no message to show and nothing a reload would fix, so the form stays as it is.
 */
function failed(error: unknown) {
  if (error instanceof OfflineError) {
    page.alert(error.message)
  } else if (error instanceof ApiError) {
    page.alert(error.message)
    page.reload()
  } else {
    console.error(error)
    useUserStore.getState().setLoggedIn(false)
  }
}

/** Asks for a code by SMS; true when the countdown should start. */
export async function requestCode(phone: string): Promise<boolean> {
  try {
    const answer = await requestJson<PhoneAnswer>('/api/v0/user/phone', {
      method: 'PUT',
      body: { phone: phoneDigits(phone) },
      auth: false,
    })
    if (!answer) {
      page.reload()
      return false
    }
    return true
  } catch (error) {
    failed(error)
    return false
  }
}

/** Signs in: stores the tokens, fetches the profile, takes in the user and stores. True when signed in. */
export async function signIn(phone: string, code: string): Promise<boolean> {
  try {
    const signed = await requestJson<SignAnswer>('/api/v0/user/sign', {
      method: 'POST',
      body: { phone: phoneDigits(phone), code: code.trim() },
      auth: false,
    })
    if (!signed) {
      page.reload()
      return false
    }
    setTokens(signed.token)
    const profile: ProfileAnswer | undefined = await fetchProfile()
    if (!profile) {
      page.reload()
      return false
    }
    if (profile.stores.length === 0) {
      page.alert(noPermission)
      await clearDevice()
      page.reload()
      return false
    }
    applyProfile(profile, { keepSelection: false })
    return true
  } catch (error) {
    failed(error)
    return false
  }
}
