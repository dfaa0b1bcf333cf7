// Registers the service worker that the build generates (vite-plugin-pwa's sw.js) and tells the app
// when a new version is waiting to take over, so that it can ask first (update-prompt.tsx). It does in
// a few lines what workbox-window did for this app, which every page loaded at start: a new worker
// installed while another controls the page (found by this tab or another) is announced; accepting
// sends it the skip-waiting message the generated worker listens for; and once it controls the page,
// the page reloads into the new version (every tab that announced it, whichever accepted).

/** The generated service worker, at the root so that it controls every page. */
const workerUrl = '/sw.js'

/**
 * Registers the worker; `onWaiting` is called with the function that switches to a new version when
 * one waits. Resolves to the registration (undefined without service workers).
 */
export async function registerServiceWorker(
  onWaiting: (accept: () => void) => void,
): Promise<ServiceWorkerRegistration | undefined> {
  const container = navigator.serviceWorker
  if (!container) return
  const registration = await container.register(workerUrl, { scope: '/' })
  let announced = false
  const announce = () => {
    // The first worker of a page is no update: it serves the next visit without asking.
    if (!container.controller) return
    if (!announced) container.addEventListener('controllerchange', () => window.location.reload())
    announced = true
    onWaiting(() => registration.waiting?.postMessage({ type: 'SKIP_WAITING' }))
  }
  if (registration.waiting) announce()
  registration.addEventListener('updatefound', () => {
    const worker = registration.installing
    worker?.addEventListener('statechange', () => {
      if (worker.state === 'installed') announce()
    })
  })
  return registration
}
