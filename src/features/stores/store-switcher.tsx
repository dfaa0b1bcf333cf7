// The header's store switcher: the current store's first image and name, and a dropdown of every store
// the user may see. Choosing one opens its sales (the sales route makes it the current store).
import { Link, useNavigate } from '@tanstack/react-router'
import { useId } from 'react'
import type { Store } from '../../../contract/api.ts'
import { imageUrl } from '../../config.ts'
import { useStoreStore } from '../../lib/session-state.ts'
import { useDropdown } from '../../lib/use-dropdown.ts'

function Thumbnail({ store }: { store: Store }) {
  const [first] = store.images
  return first ? (
    <img className="store-thumb" src={imageUrl(first)} alt="" width={32} height={32} />
  ) : (
    <span className="store-thumb store-thumb-initial" aria-hidden="true">
      {store.name.slice(0, 1)}
    </span>
  )
}

/** `shownStoreId`: the store whose figures the screen shows (else the remembered selection is named). */
export function StoreSwitcher({ shownStoreId }: { shownStoreId?: number }) {
  const remembered = useStoreStore((state) => state.store)
  const stores = useStoreStore((state) => state.stores)
  const store = stores.find((option) => option.id === shownStoreId) ?? remembered
  const navigate = useNavigate()
  const { open, setOpen, close, container, opener, panel } = useDropdown<HTMLDivElement, HTMLUListElement>()
  const listId = useId()

  if (!store) return <div className="store-switcher" />
  return (
    <div className="store-switcher" ref={container}>
      <button
        type="button"
        ref={opener}
        className="store-current"
        // A disclosure, not a menu: the list holds plain buttons reached with Tab, so no aria-haspopup
        // (which announces a menu and its arrow keys).
        aria-expanded={open}
        aria-controls={open ? listId : undefined}
        aria-label={`매장: ${store.name} (매장 바꾸기)`}
        onClick={() => setOpen((wasOpen) => !wasOpen)}
      >
        <Thumbnail store={store} />
        <span className="store-name">{store.name}</span>
        <span className="caret" aria-hidden="true">
          ▾
        </span>
      </button>
      {open && (
        <ul id={listId} className="store-menu" ref={panel} aria-label="매장 목록">
          <li>
            <Link to="/stores" className="store-menu-all" onClick={() => close(true)}>
              전체 매장
            </Link>
          </li>
          {stores.map((option) => (
            <li key={option.id}>
              <button
                type="button"
                aria-current={option.id === store.id ? 'true' : undefined}
                onClick={() => {
                  close(true)
                  // The same period of the other store.
                  void navigate({ to: '/', search: (previous) => ({ ...previous, store: option.id }) })
                }}
              >
                <Thumbnail store={option} />
                <span>{option.name}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
