// The service worker's registration (src/pwa/register-sw.ts) against a fake container: a new version
// is announced only when it would replace the worker that controls the page, accepting it sends the
// skip-waiting message the generated worker listens for, and the page reloads once it has taken over.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { registerServiceWorker } from '../../src/pwa/register-sw.ts'

class FakeWorker extends EventTarget {
  state = 'installing'
  postMessage = vi.fn()
  install() {
    this.state = 'installed'
    this.dispatchEvent(new Event('statechange'))
  }
}

class FakeRegistration extends EventTarget {
  installing: FakeWorker | null = null
  waiting: FakeWorker | null = null
  update = vi.fn()
  /** A new worker is found and installed; it then waits while another controls the page. */
  found() {
    const worker = new FakeWorker()
    this.installing = worker
    this.dispatchEvent(new Event('updatefound'))
    this.installing = null
    worker.install()
    this.waiting = worker
    return worker
  }
}

function fakeContainer({ controlled, waiting }: { controlled: boolean; waiting?: boolean }) {
  const registration = new FakeRegistration()
  if (waiting) registration.waiting = new FakeWorker()
  const container = Object.assign(new EventTarget(), {
    controller: controlled ? {} : null,
    register: vi.fn(async () => registration),
  })
  vi.stubGlobal('navigator', { serviceWorker: container })
  const reload = vi.fn()
  vi.stubGlobal('location', { ...window.location, reload })
  return { registration, container, reload }
}

afterEach(() => vi.unstubAllGlobals())

describe('the service worker registration', () => {
  it('registers the generated worker at the root', async () => {
    const { container, registration } = fakeContainer({ controlled: false })
    expect(await registerServiceWorker(() => {})).toBe(registration)
    expect(container.register).toHaveBeenCalledWith('/sw.js', { scope: '/' })
  })

  it("announces nothing for a page's first worker", async () => {
    const { registration } = fakeContainer({ controlled: false })
    const waiting = vi.fn()
    await registerServiceWorker(waiting)
    registration.found()
    expect(waiting).not.toHaveBeenCalled()
  })

  it('announces a new version found while the page is controlled; accepting makes it take over, then reloads', async () => {
    const { registration, container, reload } = fakeContainer({ controlled: true })
    let accept: (() => void) | undefined
    await registerServiceWorker((next) => {
      accept = next
    })
    expect(accept).toBeUndefined()
    const worker = registration.found()
    expect(accept).toBeTypeOf('function')
    expect(worker.postMessage).not.toHaveBeenCalled()
    expect(reload).not.toHaveBeenCalled()
    accept?.()
    expect(worker.postMessage).toHaveBeenCalledWith({ type: 'SKIP_WAITING' })
    container.dispatchEvent(new Event('controllerchange'))
    expect(reload).toHaveBeenCalledTimes(1)
  })

  it('announces a version already waiting when the page starts', async () => {
    const { registration } = fakeContainer({ controlled: true, waiting: true })
    const waiting = vi.fn()
    await registerServiceWorker(waiting)
    expect(waiting).toHaveBeenCalledTimes(1)
    waiting.mock.calls[0]?.[0]()
    expect(registration.waiting?.postMessage).toHaveBeenCalledWith({ type: 'SKIP_WAITING' })
  })

  it('does nothing without service workers', async () => {
    vi.stubGlobal('navigator', {})
    expect(await registerServiceWorker(() => {})).toBeUndefined()
  })
})
