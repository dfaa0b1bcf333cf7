// The sign-in steps: ask for a code, sign in with it, take in the profile; with the alerts and the
// reloads the product's error rules give (docs/product.md §4.1 and §6).
import type { PhoneAnswer, SignAnswer } from '../../../contract/api.ts'
import { storeSignInOpens } from '../../../contract/opened-store.ts'
import { phoneDigits } from '../../../contract/phone.ts'
import { askUsageEarly } from '../../figures/year-request.ts'
import {
  EmptyAnswerError,
  HttpError,
  OfflineError,
  reloadForEmptyAnswer,
  requestJson,
} from '../../lib/api.ts'
import { page, reloadFor } from '../../lib/page.ts'
import { applyProfile, fetchProfile, NoStoresError, noPermission } from '../../lib/session-state.ts'
import { sessionGeneration, setTokens } from '../../lib/tokens.ts'
import { codeSeconds } from './countdown.ts'
import { endSession } from './session.ts'

export const isCodeComplete = (code: string) => /^[0-9]{4}$/.test(code.trim())

/**
 * A call that fails shows the server's message and the page reloads, once a minute at
 * most; after that the form stays, and its button tries again. An empty answer reloads the page (once
 * a minute per call), else says so. Without any answer (offline) there is nothing a reload would fix,
 * so the form stays as it is and says why.
 */
function failed(error: unknown) {
  if (error instanceof EmptyAnswerError) {
    if (!reloadForEmptyAnswer(error)) page.alert(error.message)
  } else if (error instanceof OfflineError) {
    page.alert(error.message)
  } else if (error instanceof HttpError) {
    page.alert(error.message)
    reloadFor('refused')
  } else {
    console.error(error)
  }
}

/**
 * Asks for a code by SMS. Resolves to the seconds the code is valid (the countdown's length: the
 * answer's `expiresIn`, or the product's 180 when a server gives none that makes sense), or null when
 * no code was sent.
 */
export async function requestCode(phone: string): Promise<number | null> {
  try {
    const { expiresIn } = await requestJson<Partial<PhoneAnswer>>('/api/v0/user/phone', {
      method: 'PUT',
      body: { phone: phoneDigits(phone) },
      auth: false,
    })
    return Number.isInteger(expiresIn) && expiresIn && expiresIn > 0 && expiresIn <= 3600
      ? expiresIn
      : codeSeconds
  } catch (error) {
    failed(error)
    return null
  }
}

/** Signs in: stores the tokens, fetches the profile, takes in the user and stores. True when signed in. */
export async function signIn(phone: string, code: string): Promise<boolean> {
  const startedIn = sessionGeneration()
  let tokensStored = false
  try {
    const signed = await requestJson<SignAnswer>('/api/v0/user/sign', {
      method: 'POST',
      body: { phone: phoneDigits(phone), code: code.trim() },
      auth: false,
    })
    if (!setTokens(signed.token, startedIn, true)) return false
    tokensStored = true
    // The figures of the store this sign-in opens are asked for as soon as it is known: named in our
    // server's answer (while the profile is fetched), else by the profile (figures/year-request.ts), by the
    // same rule (contract/opened-store.ts).
    const named = signed.firstStoreId
    if (typeof named === 'number' && Number.isSafeInteger(named) && named > 0) askUsageEarly(named)
    const profile = await fetchProfile()
    const opened = storeSignInOpens(profile.stores)
    if (opened) askUsageEarly(opened.id)
    return applyProfile(profile, { keepSelection: false, startedIn })
  } catch (error) {
    if (error instanceof NoStoresError) {
      page.alert(noPermission)
      await endSession({ reload: true })
      return false
    }
    // Signed in without a profile to show: the tokens are not kept for a screen that cannot use them.
    // The session ends as every session does; the form stays, and says why.
    if (tokensStored) await endSession({ stay: true })
    failed(error)
    return false
  }
}
