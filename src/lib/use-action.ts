// One call the owner starts on a managing screen (a device added, renamed, revoked; a member invited,
// changed, removed): whether it runs, its error, its answer. Not TanStack Query's useMutation: that
// would put its code in the chunk every signed-in screen loads.
import { useState } from 'react'

export function useAction<Input, Output>(
  call: (input: Input) => Promise<Output>,
  done?: (output: Output) => unknown,
) {
  const [state, setState] = useState<{ isPending: boolean; error: Error | null; data: Output | undefined }>({
    isPending: false,
    error: null,
    data: undefined,
  })
  const mutate = (input: Input) => {
    setState((previous) => ({ ...previous, isPending: true, error: null }))
    call(input).then(
      async (data) => {
        await done?.(data)
        setState({ isPending: false, error: null, data })
      },
      (error: unknown) =>
        setState({
          isPending: false,
          data: undefined,
          error: error instanceof Error ? error : new Error(String(error)),
        }),
    )
  }
  return { ...state, mutate }
}
