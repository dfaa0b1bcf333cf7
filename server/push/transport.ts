// The one door to the push services: a small interface of ours, so that the library behind it
// (web-push today) can be swapped, and unit tests hand the delivery a fake. A transport encrypts the
// payload for the subscription (aes128gcm), signs the request with our VAPID keys and sends it; it
// answers the push service's status and its Retry-After, and throws only when no answer came.
import type { Agent } from 'node:https'
import webpush from 'web-push'

/** RFC 8030 §5.3: how soon the device must be woken for it. */
export type Urgency = 'very-low' | 'low' | 'normal' | 'high'

export interface PushRequest {
  endpoint: string
  keys: { p256dh: string; auth: string }
  /** The clear text; the transport encrypts it. */
  payload: string
  /** How long the push service may keep it for a device that is offline (`TTL`). */
  ttlSeconds: number
  urgency: Urgency
  /** A message of the same topic waiting at the push service replaces the older one (RFC 8030 §5.4). */
  topic?: string
}

export interface PushResponse {
  statusCode: number
  /** The push service's Retry-After header, as sent. */
  retryAfter?: string
}

export interface PushTransport {
  send(request: PushRequest): Promise<PushResponse>
}

export interface VapidKeys {
  /** The uncompressed P-256 public key, base64url (65 bytes). */
  publicKey: string
  /** The private key, base64url (32 bytes). */
  privateKey: string
}

export interface WebPushTransportOptions {
  keys: VapidKeys
  /** The VAPID subject, `mailto:` or `https:`. */
  subject: string
  /** The HTTPS agent (a test trusts its local push service's certificate with it). */
  agent?: Agent
  timeoutMs?: number
}

const header = (headers: unknown, name: string) => {
  const value = (headers as Record<string, unknown> | undefined)?.[name]
  return typeof value === 'string' ? value : undefined
}

/** The transport on the `web-push` library. */
export function webPushTransport({
  keys,
  subject,
  agent,
  timeoutMs = 10_000,
}: WebPushTransportOptions): PushTransport {
  const vapidDetails = { subject, publicKey: keys.publicKey, privateKey: keys.privateKey }
  return {
    async send(request) {
      try {
        const result = await webpush.sendNotification(
          { endpoint: request.endpoint, keys: request.keys },
          request.payload,
          {
            vapidDetails,
            TTL: request.ttlSeconds,
            urgency: request.urgency,
            ...(request.topic ? { topic: request.topic } : {}),
            contentEncoding: 'aes128gcm',
            timeout: timeoutMs,
            ...(agent ? { agent } : {}),
          },
        )
        return { statusCode: result.statusCode, retryAfter: header(result.headers, 'retry-after') }
      } catch (error) {
        // web-push throws a WebPushError for every answer that is not 2xx: an answer all the same.
        if (error instanceof webpush.WebPushError)
          return { statusCode: error.statusCode, retryAfter: header(error.headers, 'retry-after') }
        throw error
      }
    },
  }
}
