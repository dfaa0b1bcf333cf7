// Registers the service worker and, when a new version is waiting, asks before switching to it: a
// silent swap could lose what the user was looking at. The selected store and period survive the
// reload (local storage and the address).

import { useEffect, useState } from 'react'
import { registerServiceWorker } from './register-sw.ts'

const hourly = 60 * 60 * 1000

export function UpdatePrompt() {
  /** Switches to the waiting version; null while none waits, or once the user chose later. */
  const [accept, setAccept] = useState<(() => void) | null>(null)
  useEffect(() => {
    registerServiceWorker((next) => setAccept(() => next)).then(
      (registration) => {
        if (!registration) return
        // A store-front device may stay open for days: look for a new version now and then, and
        // whenever the app comes back to the foreground.
        window.setInterval(() => void registration.update(), hourly)
        document.addEventListener('visibilitychange', () => {
          if (document.visibilityState === 'visible') void registration.update()
        })
      },
      () => undefined,
    )
  }, [])
  useEffect(() => {
    if (accept) document.querySelector<HTMLButtonElement>('.update-prompt button')?.focus()
  }, [accept])

  if (!accept) return null
  return (
    <div className="update-prompt" role="alertdialog" aria-labelledby="update-title">
      <p id="update-title">새 버전이 있습니다.</p>
      <button type="button" className="update-accept" onClick={accept}>
        새로고침
      </button>
      <button type="button" className="update-later" onClick={() => setAccept(null)}>
        나중에
      </button>
    </div>
  )
}
