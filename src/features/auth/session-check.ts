// The check of a remembered session when the app starts: part of the session's life (session.ts),
// in a file of its own because only a device that starts signed in loads it. It imports nothing of
// session.ts (no import circle): the one way a session ends, endSession, is handed to it.
import {
  EmptyAnswerError,
  HttpError,
  OfflineError,
  reloadForEmptyAnswer,
  SessionEndedError,
  StaleSessionError,
} from '../../lib/api.ts'
import { clearProblem, showProblem } from '../../lib/problem.ts'
import { applyProfile, fetchProfile, NoStoresError } from '../../lib/session-state.ts'
import { isSessionCurrent, sessionGeneration } from '../../lib/tokens.ts'

/** How the check ends a session: session.ts's endSession. */
type EndSession = (ending: { reload: true }) => Promise<void>

/**
 * The check of a remembered session when the app starts: the profile is fetched again, and the user,
 * the stores and (when still the user's) the selected store are taken in. Offline, or the server in
 * trouble, the session stays; only a server that says the sign-in is gone, or a user left with no
 * stores, ends it (`endSession`, with a reload). An empty answer reloads the page, and after that shows
 * a problem with a retry.
 */
export async function recheckSession(endSession: EndSession): Promise<void> {
  const startedIn = sessionGeneration()
  const retry = () => {
    clearProblem()
    void recheckSession(endSession)
  }
  try {
    const profile = await fetchProfile()
    if (applyProfile(profile, { keepSelection: true, startedIn })) clearProblem()
  } catch (error) {
    if (
      error instanceof OfflineError ||
      error instanceof SessionEndedError ||
      error instanceof StaleSessionError ||
      !isSessionCurrent(startedIn)
    ) {
      return
    }
    console.error(error)
    if (error instanceof EmptyAnswerError) {
      if (!reloadForEmptyAnswer(error)) showProblem({ message: error.message, retry })
    } else if (error instanceof NoStoresError || (error instanceof HttpError && error.status < 500)) {
      await endSession({ reload: true })
    }
  }
}
