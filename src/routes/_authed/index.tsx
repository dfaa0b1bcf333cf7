import { createFileRoute } from '@tanstack/react-router'

export const Route = createFileRoute('/_authed/')({
  component: SalesPage,
})

function SalesPage() {
  return <main>매출</main>
}
