// The views the root route shows when a route fails or no route matches. (Files starting with '-' are
// not routes.)
import { type ErrorComponentProps, Link } from '@tanstack/react-router'
import { useDocumentTitle } from '../lib/document-title.ts'

export function RouteError({ error }: Pick<ErrorComponentProps, 'error'>) {
  return (
    <main className="route-message" role="alert">
      <h1 lang="en">Unexpected Application Error!</h1>
      <p>{error instanceof Error ? error.message : String(error)}</p>
    </main>
  )
}

/** An unknown path is not a route error, just a short not-found view with a way home. */
export function NotFound() {
  useDocumentTitle('페이지를 찾을 수 없습니다')
  return (
    <main className="route-message">
      <h1>페이지를 찾을 수 없습니다</h1>
      <p>주소가 바뀌었거나 없는 페이지입니다.</p>
      <Link to="/">처음 화면으로</Link>
    </main>
  )
}
