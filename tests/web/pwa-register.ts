// What `virtual:pwa-register/react` gives the app (vite-plugin-pwa makes it at build time), for unit
// tests that render the whole route tree: no service worker, never an update waiting.
export function useRegisterSW() {
  return {
    needRefresh: [false, () => {}] as [boolean, (value: boolean) => void],
    offlineReady: [false, () => {}] as [boolean, (value: boolean) => void],
    updateServiceWorker: async () => {},
  }
}
