import { useCallback, useEffect, useRef, useState } from 'react'

/**
 * A dropdown opened by a button: it closes on a mouse press outside it or on Escape, and Escape or a
 * choice gives focus back to the button. Opening moves focus into the panel, onto the current item
 * (`[aria-current]`) when there is one, else onto its first button or link.
 */
export function useDropdown<Container extends HTMLElement, Panel extends HTMLElement>() {
  const [open, setOpen] = useState(false)
  const container = useRef<Container>(null)
  const opener = useRef<HTMLButtonElement>(null)
  const panel = useRef<Panel>(null)

  const close = useCallback((returnFocus = false) => {
    setOpen(false)
    if (returnFocus) opener.current?.focus()
  }, [])

  useEffect(() => {
    if (!open) return
    const current = panel.current?.querySelector<HTMLElement>('[aria-current]:not([aria-current="false"])')
    ;(current ?? panel.current?.querySelector<HTMLElement>('button, a[href]'))?.focus()
    const onPointerDown = (event: MouseEvent) => {
      if (!container.current?.contains(event.target as Node)) close()
    }
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === 'Escape') close(true)
    }
    document.addEventListener('mousedown', onPointerDown)
    document.addEventListener('keydown', onKeyDown)
    return () => {
      document.removeEventListener('mousedown', onPointerDown)
      document.removeEventListener('keydown', onKeyDown)
    }
  }, [open, close])

  return { open, setOpen, close, container, opener, panel }
}
