// A problem the owner can act on, shown above every screen with a Korean message and a retry button:
// for when the server keeps answering oddly and reloading the page again would only loop. Without a
// retry it is a notice the owner closes (a store taken from them, features/auth/store-lost.ts).
import { create } from 'zustand'

export interface Problem {
  message: string
  retry?(): void
}

export const useProblem = create<{ problem: Problem | null }>()(() => ({ problem: null }))

export const showProblem = (problem: Problem) => useProblem.setState({ problem })
export const clearProblem = () => useProblem.setState({ problem: null })
