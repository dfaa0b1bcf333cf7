// What a push carries: the JSON text the server sends through the push service and the service worker
// reads (src/pwa/push-payload.ts). Every push is a notification: a title, a text, a tag, and the store
// whose sales screen a click opens. Built one way (`pushPayload`), by the server only.

export interface PushPayload {
  title: string
  body: string
  /** A later notification of the same tag replaces this one on the device. */
  tag: string
  /** The store whose sales screen a click opens; none opens the app's start. */
  store?: number
}

/** The payload of a notification about one store (`storeId`), or about none (null: the app's start). */
export const pushPayload = (message: {
  title: string
  body: string
  tag: string
  storeId?: number | null
}): PushPayload => ({
  title: message.title,
  body: message.body,
  tag: message.tag,
  ...(message.storeId ? { store: message.storeId } : {}),
})
