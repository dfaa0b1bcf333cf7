// The signed-in header's menu (⋮): the alerts screen, for everyone signed in, and the devices and the
// team screens, for a user who owns a store (the profile's role, our server's addition; staff, managers
// and other servers' users do not see them).
import { Link } from '@tanstack/react-router'
import { useId } from 'react'
import { useStoreStore } from '../lib/session-state.ts'
import { useDropdown } from '../lib/use-dropdown.ts'

/** `shownStoreId`: the store the screen shows; its devices and team open when the user owns it. */
export function HeaderMenu({ shownStoreId }: { shownStoreId?: number }) {
  const stores = useStoreStore((state) => state.stores)
  const { open, setOpen, close, container, opener, panel } = useDropdown<HTMLDivElement, HTMLUListElement>()
  const listId = useId()
  const owned = stores.filter((store) => store.role === 'owner')
  const store = owned.find((option) => option.id === shownStoreId) ?? owned[0]
  return (
    <div className="header-menu" ref={container}>
      <button
        type="button"
        ref={opener}
        className="header-menu-button"
        aria-label="메뉴"
        aria-expanded={open}
        aria-controls={open ? listId : undefined}
        onClick={() => setOpen((wasOpen) => !wasOpen)}
      >
        <svg viewBox="0 0 16 16" width="18" height="18" aria-hidden="true">
          <circle cx="8" cy="3" r="1.6" fill="currentColor" />
          <circle cx="8" cy="8" r="1.6" fill="currentColor" />
          <circle cx="8" cy="13" r="1.6" fill="currentColor" />
        </svg>
      </button>
      {open && (
        <ul id={listId} className="header-menu-list" ref={panel}>
          {store && (
            <li>
              <Link to="/devices" search={{ store: store.id }} onClick={() => close()}>
                단말기 관리
              </Link>
            </li>
          )}
          {store && (
            <li>
              <Link to="/team" search={{ store: store.id }} onClick={() => close()}>
                팀 관리
              </Link>
            </li>
          )}
          <li>
            <Link to="/alerts" onClick={() => close()}>
              알림
            </Link>
          </li>
        </ul>
      )}
    </div>
  )
}
