// The check of a remembered session on start. Loaded only when the device starts signed
// in, so the login screen does not carry it.
import {
  ApiError,
  EmptyAnswerError,
  emptyAnswerMessage,
  endSessionHere,
  OfflineError,
  SessionEndedError,
  StaleSessionError,
} from './api.ts'
import { reloadFor } from './page.ts'
import { clearProblem, showProblem } from './problem.ts'
import { applyProfile, clearDevice, fetchProfile } from './session.ts'
import { isSessionCurrent, sessionGeneration } from './tokens.ts'

/**
 * On start, a session the device remembers is checked against the server. Offline, or
 * the server in trouble, it stays: only a server that says the sign-in is gone, or a user left with
 * no stores, ends it.
 */
export async function refreshSession(): Promise<void> {
  const startedIn = sessionGeneration()
  const retry = () => {
    clearProblem()
    void refreshSession()
  }
  /** The sign-in is gone: forget it, then reload into the login screen, or show it without a reload. */
  const signedOut = async () => {
    await clearDevice()
    if (!reloadFor('signed-out')) endSessionHere()
  }
  try {
    const profile = await fetchProfile()
    if (!isSessionCurrent(startedIn)) return
    if (!profile) {
      // An empty profile reloads the page; a server that keeps doing it gets an error.
      if (!reloadFor('profile')) showProblem({ message: emptyAnswerMessage, retry })
      return
    }
    if (profile.stores.length === 0) {
      await signedOut()
      return
    }
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
      showProblem({ message: error.message, retry })
    } else if (error instanceof ApiError && error.status < 500) {
      await signedOut()
    }
  }
}
