import { clearProblem, useProblem } from '../lib/problem.ts'
/**
 * A problem the owner can act on (lib/problem.ts), such as a server that keeps answering the session
 * check empty: its Korean message and a retry button; or a notice without a retry, which the owner
 * closes. Only signed-in screens check the session.
 */
export function ProblemNotice() {
  const problem = useProblem((state) => state.problem)
  if (!problem) return null
  return (
    <div className="app-problem" role="alert">
      <p>{problem.message}</p>
      <button type="button" className="retry-button" onClick={problem.retry ?? clearProblem}>
        {problem.retry ? '다시 시도' : '닫기'}
      </button>
    </div>
  )
}
