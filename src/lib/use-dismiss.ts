import { type RefObject, useEffect } from 'react'

/**
 * Closes an open dropdown on a mouse press outside `container` or on Escape; Escape also gives focus
 * back to the control that opened it.
 */
export function useDismiss(
  container: RefObject<HTMLElement | null>,
  opener: RefObject<HTMLElement | null>,
  open: boolean,
  close: () => void,
) {
  useEffect(() => {
    if (!open) return
    const onPointerDown = (event: MouseEvent) => {
      if (!container.current?.contains(event.target as Node)) close()
    }
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return
      close()
      opener.current?.focus()
    }
    document.addEventListener('mousedown', onPointerDown)
    document.addEventListener('keydown', onKeyDown)
    return () => {
      document.removeEventListener('mousedown', onPointerDown)
      document.removeEventListener('keydown', onKeyDown)
    }
  }, [container, opener, open, close])
}
