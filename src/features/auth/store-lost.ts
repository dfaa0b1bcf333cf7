// A store taken from the user while the app runs (docs/product.md §15, decision 227): the server refused a call about
// it (403), and the profile, asked again, no longer lists it. The device then forgets what it keeps of
// that store (its kept figures and totals: applyProfile), the screen returns to the store list, and a
// Korean notice says why. A refusal of another kind (money hidden from staff, a screen for owners only)
// leaves the profile listing the store: it is applied (the amounts go without a reload) and nothing else
// happens. A user left with no store at all is signed
// out, as at any other check of the session. Loaded only when such a refusal comes (routes/_authed.tsx).
import { OfflineError, SessionEndedError, StaleSessionError } from '../../lib/api.ts'
import { showProblem } from '../../lib/problem.ts'
import { applyProfile, fetchProfile, NoStoresError, useStoreStore } from '../../lib/session-state.ts'
import { isSessionCurrent, sessionGeneration } from '../../lib/tokens.ts'
import { endSession } from './session.ts'

/** The notice of a store the user no longer belongs to. */
export const storeLostNotice = (storeName: string) =>
  `‘${storeName}’에서 제외되어 더 이상 볼 수 없습니다. 이 기기에 저장된 그 매장의 매출도 지웠습니다.`

/** The stores being checked: several refusals of one store at once make one check. */
const checking = new Set<number>()

/**
 * After a refusal of a call about `storeId`: asks for the profile and, when the store is gone from it,
 * forgets it and calls `land` (the store list). Resolves to whether the store was gone.
 */
export async function checkStoreLost(storeId: number, land: () => void): Promise<boolean> {
  const name = useStoreStore.getState().stores.find((store) => store.id === storeId)?.name
  // Refused again while being checked, or after it was forgotten (a call that was under way): done.
  if (checking.has(storeId) || name === undefined) return false
  checking.add(storeId)
  const startedIn = sessionGeneration()
  try {
    const profile = await fetchProfile()
    const kept = profile.stores.some((store) => store.id === storeId)
    // Still the user's (its won amounts hidden since, decision 223): the screens follow the profile.
    if (!applyProfile(profile, { keepSelection: true, startedIn }) || kept) return false
    showProblem({ message: storeLostNotice(name) })
    land()
    return true
  } catch (error) {
    if (error instanceof NoStoresError && isSessionCurrent(startedIn)) await endSession()
    else if (
      !(
        error instanceof OfflineError ||
        error instanceof SessionEndedError ||
        error instanceof StaleSessionError
      )
    )
      console.error(error)
    return false
  } finally {
    checking.delete(storeId)
  }
}
