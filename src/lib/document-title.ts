import { useEffect } from 'react'

/** The app's name, from index.html's <title>: every screen's title ends with it. */
const appName = typeof document === 'undefined' ? '' : document.title

/**
 * Names the screen in the browser tab, the window switcher and the screen reader's announcement of a
 * new page (WCAG 2.4.2): `로그인 · 빨래방 매출`. Each screen sets its own; the address changes without a
 * page load, so the title must be set by the screen that is shown.
 */
export function useDocumentTitle(title: string) {
  useEffect(() => {
    document.title = appName ? `${title} · ${appName}` : title
  }, [title])
}
