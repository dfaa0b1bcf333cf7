import { QueryClient } from '@tanstack/react-query'
import { ApiError, SessionEndedError } from './api.ts'

const day = 24 * 60 * 60 * 1000

/** A refused request (4xx) or an ended session will not get better by asking again. */
const worthRetrying = (failures: number, error: Error) =>
  failures < 2 && !(error instanceof SessionEndedError) && !(error instanceof ApiError && error.status < 500)

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // Today's takings change through the day: a minute-old answer is refetched when looked at again.
      staleTime: 60_000,
      gcTime: 7 * day,
      retry: worthRetrying,
      refetchOnWindowFocus: true,
    },
  },
})
