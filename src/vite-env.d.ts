/// <reference types="vite/client" />

interface ImportMetaEnv {
  readonly VITE_API_BASE?: string
  readonly VITE_IMAGE_BASE?: string
  readonly VITE_SUPPORT_PHONE?: string
  readonly VITE_SUPPORT_EMAIL?: string
}

/** The app's version (package.json), which also invalidates the offline cache of older versions. */
declare const __APP_VERSION__: string
/** The alerts screen's examples, worded at build time by domain/alert-texts.ts (src/features/alerts/alert-examples.ts). */
declare const __ALERT_EXAMPLES__: Record<import('../contract/api.ts').AlertKind, [string, string]>
