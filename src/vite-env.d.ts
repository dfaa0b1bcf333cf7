/// <reference types="vite/client" />

interface ImportMetaEnv {
  readonly VITE_API_BASE?: string
  readonly VITE_IMAGE_BASE?: string
  readonly VITE_SUPPORT_PHONE?: string
  readonly VITE_SUPPORT_EMAIL?: string
}

/** The app's version (package.json), which also invalidates the offline cache of older versions. */
declare const __APP_VERSION__: string
