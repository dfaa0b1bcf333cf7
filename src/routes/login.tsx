import { createFileRoute, type SearchSchemaInput } from '@tanstack/react-router'
import { LoginForm } from '../features/auth/login-form.tsx'
import { returnTarget } from '../features/auth/return-target.ts'
import { useDocumentTitle } from '../lib/document-title.ts'
import { requireSignedOut } from './-guard.ts'

// The login screen: `/login`, or `/login?redirect=%2Falerts` after a signed-out visit to another page,
// which opens once signed in (a page of this app only: features/auth/return-target.ts).

type LoginSearch = { redirect?: string }

export const Route = createFileRoute('/login')({
  // Checked where it is followed, by the screen's own code: the route every page loads stays small.
  validateSearch: ({ redirect }: LoginSearch & SearchSchemaInput): LoginSearch =>
    typeof redirect === 'string' ? { redirect } : {},
  beforeLoad: requireSignedOut,
  component: LoginPage,
})

function LoginPage() {
  const navigate = Route.useNavigate()
  const { redirect } = Route.useSearch()
  useDocumentTitle('로그인')
  return (
    // The header with the logo is index.html's, shown before this screen's code has loaded.
    <main className="login-main">
      <h1 className="visually-hidden">로그인</h1>
      <LoginForm onSignedIn={() => navigate({ href: returnTarget(redirect) ?? '/', replace: true })} />
    </main>
  )
}
