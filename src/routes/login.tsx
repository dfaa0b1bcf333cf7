import { createFileRoute, useNavigate } from '@tanstack/react-router'
import { LoginForm } from '../features/auth/login-form.tsx'
import { useDocumentTitle } from '../lib/document-title.ts'
import { requireSignedOut } from './-guard.ts'

export const Route = createFileRoute('/login')({
  beforeLoad: requireSignedOut,
  component: LoginPage,
})

function LoginPage() {
  const navigate = useNavigate()
  useDocumentTitle('로그인')
  return (
    // The header with the logo is index.html's, shown before this screen's code has loaded.
    <main className="login-main">
      <h1 className="visually-hidden">로그인</h1>
      <LoginForm onSignedIn={() => navigate({ to: '/', replace: true })} />
    </main>
  )
}
