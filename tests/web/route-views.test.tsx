import {
  createMemoryHistory,
  createRootRoute,
  createRoute,
  createRouter,
  RouterProvider,
} from '@tanstack/react-router'
import { render, screen } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { NotFound, RouteError } from '../../src/routes/-route-views.tsx'

function renderAt(path: string) {
  const root = createRootRoute({ errorComponent: RouteError, notFoundComponent: NotFound })
  const broken = createRoute({
    getParentRoute: () => root,
    path: '/broken',
    loader: () => {
      throw new Error('the loader broke')
    },
  })
  const router = createRouter({
    routeTree: root.addChildren([broken]),
    history: createMemoryHistory({ initialEntries: [path] }),
  })
  render(<RouterProvider router={router} />)
}

describe('the root route views', () => {
  it("a route error shows 'Unexpected Application Error!' with the error's message", async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    renderAt('/broken')
    expect(await screen.findByRole('heading', { name: 'Unexpected Application Error!' })).toBeInTheDocument()
    expect(screen.getByText('the loader broke')).toBeInTheDocument()
  })

  it('an unknown path shows a not-found view with a link home, not an error', async () => {
    renderAt('/nowhere')
    expect(await screen.findByRole('heading', { name: '페이지를 찾을 수 없습니다' })).toBeInTheDocument()
    expect(screen.getByRole('link', { name: '처음 화면으로' })).toHaveAttribute('href', '/')
    expect(screen.queryByText('Unexpected Application Error!')).not.toBeInTheDocument()
  })
})
