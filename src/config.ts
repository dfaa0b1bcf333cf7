// Everything a person may configure about the web app, read once at build time (VITE_* variables).

const env = import.meta.env

function base(value: string | undefined, fallback: string) {
  const text = value?.trim() || fallback
  return text.endsWith('/') ? text : `${text}/`
}

export const config = {
  /** Address of the provider API; empty means the same origin as the app. */
  apiBase: (env.VITE_API_BASE ?? '').trim().replace(/\/$/, ''),
  /** Store and profile image paths are joined to this. */
  imageBase: base(env.VITE_IMAGE_BASE, '/images/'),
  supportPhone: env.VITE_SUPPORT_PHONE?.trim() || '1588-0000',
  supportEmail: env.VITE_SUPPORT_EMAIL?.trim() || 'support@example.com',
}

export const apiUrl = (path: string) => `${config.apiBase}${path}`
export const imageUrl = (path: string) => `${config.imageBase}${path.replace(/^\//, '')}`
