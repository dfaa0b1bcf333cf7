import { createFileRoute, redirect } from '@tanstack/react-router'
import { isLoggedIn } from '../lib/session.ts'

export const Route = createFileRoute('/login')({
  beforeLoad: () => {
    if (isLoggedIn()) throw redirect({ to: '/', replace: true })
  },
  component: LoginPage,
})

function LoginPage() {
  return (
    <main>
      <label>
        휴대폰 번호
        <input type="tel" inputMode="numeric" placeholder="01012345678" />
      </label>
    </main>
  )
}
