// The names the app and the first painter share (src/shell/names.ts), against the copies that cannot
// import them: index.html and the route files; and index.html's root, which main.tsx and the painter
// each name. And the one function that removes
// what the painter painted.
import { createMemoryHistory, createRouter } from '@tanstack/react-router'
import { describe, expect, it } from 'vitest'
import indexHtml from '../../../index.html?raw'
import { sessionView } from '../../../src/lib/session-state.ts'
import mainSource from '../../../src/main.tsx?raw'
import { routeTree } from '../../../src/routeTree.gen.ts'
import { keptTotalsClass, loginPath, loginShellSelector, salesPath } from '../../../src/shell/names.ts'
import painterSource from '../../../src/shell/paint-first.ts?raw'
import { removeShell } from '../../../src/shell/remove-shell.ts'

/** index.html's element the app renders into, before which the painter paints. */
const rootId = 'root'

describe("the shell's names", () => {
  it("are index.html's: its hidden login form and the element the app renders into", () => {
    const page = new DOMParser().parseFromString(indexHtml, 'text/html')
    expect(page.querySelector<HTMLElement>(loginShellSelector)?.hidden).toBe(true)
    expect(page.querySelector(`${loginShellSelector} input[name="phone"]`)).not.toBeNull()
    expect(page.getElementById(rootId)).not.toBeNull()
    expect(mainSource).toContain(`document.getElementById('${rootId}')`)
    expect(painterSource).toContain(`document.getElementById('${rootId}')`)
  })

  it("are the route tree's paths of the sales screen and the login screen", () => {
    const router = createRouter({
      routeTree,
      history: createMemoryHistory({ initialEntries: ['/'] }),
      context: { session: sessionView, queryClient: async () => Promise.reject(new Error('not here')) },
    })
    const paths = Object.keys(router.routesByPath)
    expect(paths).toContain(salesPath)
    expect(paths).toContain(loginPath)
  })
})

describe('removeShell', () => {
  it('removes what the first painter painted, the login form and the kept totals, and nothing else', () => {
    document.body.innerHTML = `<header class="shell-header"></header><main class="login-main ${loginShellSelector.slice(1)}"></main><section class="${keptTotalsClass}"></section><div id="${rootId}"></div>`
    removeShell()
    expect(document.body.innerHTML).toBe(`<header class="shell-header"></header><div id="${rootId}"></div>`)
    // Nothing left to remove: no harm.
    removeShell()
    expect(document.getElementById(rootId)).not.toBeNull()
  })
})
