import type { QueryClient } from '@tanstack/react-query'
import { createRootRouteWithContext, type ErrorComponentProps, Link, Outlet } from '@tanstack/react-router'

export interface RouterContext {
  queryClient: QueryClient
}

export const Route = createRootRouteWithContext<RouterContext>()({
  component: Outlet,
  errorComponent: RouteError,
  notFoundComponent: NotFound,
})

function RouteError({ error }: ErrorComponentProps) {
  return (
    <main className="route-message" role="alert">
      <h1>Unexpected Application Error!</h1>
      <p>{error instanceof Error ? error.message : String(error)}</p>
    </main>
  )
}

function NotFound() {
  return (
    <main className="route-message">
      <h1>페이지를 찾을 수 없습니다</h1>
      <p>주소가 바뀌었거나 없는 페이지입니다.</p>
      <Link to="/">처음 화면으로</Link>
    </main>
  )
}
