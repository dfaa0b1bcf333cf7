// The answers one sign-in may hold open at once on one instance (decisions 150 and 159): held calls and
// streams, and large changes answers (`countedAnswerBytes`), each until its connection has taken its last
// byte or is gone. A browser's app holds one for the sales screen's year and one for the overview; more
// are a client gone wrong, or one trying to make every sale cost this server a read per call.
import { finished } from 'node:stream'

export const heldPerSignIn = 8

/**
 * A changes answer without `wait` larger than this (the year as puts, `after=0`, of a year with records)
 * counts against the bound too while its connection takes it (decision 159).
 */
export const countedAnswerBytes = 64 * 1024

/** How long a refused client is told to wait before asking again (Retry-After, seconds). */
export const fullRetryAfterSeconds = 5

/** An answer being sent: `finished` tells when its last byte was taken or its connection went. */
export type OpenAnswer = Parameters<typeof finished>[0]

export function createOccupancy() {
  const open = new Map<string, number>()
  return {
    /** Whether the sign-in holds as many answers open on this instance as it may. */
    isFull(signInId: string) {
      return (open.get(signInId) ?? 0) >= heldPerSignIn
    },

    /**
     * Counts `answer` against its sign-in's bound until its last byte was taken or its connection is
     * gone, not only while it waits: a stream ended (token expired, too far behind) or a whole year
     * still unread by a client that does not read keeps its bytes queued here. False, counting
     * nothing, when the sign-in already holds as many as it may.
     */
    occupy(signInId: string, answer: OpenAnswer) {
      const count = open.get(signInId) ?? 0
      if (count >= heldPerSignIn) return false
      open.set(signInId, count + 1)
      let counted = true
      finished(answer, () => {
        if (!counted) return
        counted = false
        const left = (open.get(signInId) ?? 1) - 1
        if (left > 0) open.set(signInId, left)
        else open.delete(signInId)
      })
      return true
    },

    /** The answers a sign-in holds open on this instance (`occupy`). */
    occupied(signInId: string) {
      return open.get(signInId) ?? 0
    },
  }
}
