// The sign-in steps of SPEC.md 4, with the alerts and reloads of its error catalogue (section 8).
import type { PhoneAnswer, ProfileAnswer, SignAnswer } from '../../../contract/api.ts'
import { ApiError, EmptyAnswerError, emptyAnswerMessage, OfflineError, requestJson } from '../../lib/api.ts'
import { page, reloadFor } from '../../lib/page.ts'
import { applyProfile, clearDevice, fetchProfile, useUserStore } from '../../lib/session.ts'
import { sessionGeneration, setTokens } from '../../lib/tokens.ts'

export const noPermission = 'You do not have permission'

/** Digits only: hyphens and spaces are ignored (DECISIONS.md). */
export const phoneDigits = (phone: string) => phone.replace(/[\s-]/g, '')
export const isPhoneComplete = (phone: string) => /^[0-9]{10,11}$/.test(phoneDigits(phone))
export const isCodeComplete = (code: string) => /^[0-9]{4}$/.test(code.trim())

/**
 * A call that fails shows the server's message and the page reloads, once a minute at
 * most; after that the form stays, and its button tries again. Without any answer (offline) there is
 * no message to show and nothing a reload would fix, so the form stays as it is.
 */
function failed(error: unknown) {
  if (error instanceof OfflineError || error instanceof EmptyAnswerError) {
    page.alert(error.message)
  } else if (error instanceof ApiError) {
    page.alert(error.message)
    reloadFor('refused')
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
      // An empty answer reloads the page; a server that keeps doing it gets a message, and
      // the button tries again.
      if (!reloadFor('code')) page.alert(emptyAnswerMessage)
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
  const startedIn = sessionGeneration()
  try {
    const signed = await requestJson<SignAnswer>('/api/v0/user/sign', {
      method: 'POST',
      body: { phone: phoneDigits(phone), code: code.trim() },
      auth: false,
    })
    if (!signed) {
      if (!reloadFor('sign-in')) page.alert(emptyAnswerMessage)
      return false
    }
    if (!setTokens(signed.token, startedIn, true)) return false
    const profile: ProfileAnswer | undefined = await fetchProfile()
    if (!profile) {
      // Signed in without a profile to show: the tokens are not kept for a screen that cannot use them.
      await clearDevice()
      if (!reloadFor('profile')) page.alert(emptyAnswerMessage)
      return false
    }
    if (profile.stores.length === 0) {
      page.alert(noPermission)
      await clearDevice()
      reloadFor('signed-out')
      return false
    }
    return applyProfile(profile, { keepSelection: false, startedIn })
  } catch (error) {
    failed(error)
    return false
  }
}
