// What the push tests share: a browser's subscription (real P-256 keys, so the integration test can
// decrypt what is sent to it), and a fake transport that keeps each request and answers as scripted.
import { createECDH, randomBytes } from 'node:crypto'
import type { PushRequest, PushResponse, PushTransport } from '../../../server/push/transport.ts'

export interface BrowserKeys {
  ecdh: ReturnType<typeof createECDH>
  auth: Buffer
}

/** A subscription as `PushSubscription.toJSON()` gives it, with the keys to decrypt what it receives. */
export function browserSubscription(endpoint: string) {
  const ecdh = createECDH('prime256v1')
  ecdh.generateKeys()
  const auth = randomBytes(16)
  return {
    json: {
      endpoint,
      expirationTime: null,
      keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
    },
    keys: { ecdh, auth } satisfies BrowserKeys,
  }
}

/** A transport that keeps what it was asked to send and answers each endpoint from its script (201 when none). */
export function fakeTransport() {
  const sent: PushRequest[] = []
  const scripts = new Map<string, (PushResponse | Error)[]>()
  const transport: PushTransport = {
    async send(request) {
      sent.push(request)
      const next = scripts.get(request.endpoint)?.shift() ?? { statusCode: 201 }
      if (next instanceof Error) throw next
      return next
    },
  }
  return {
    transport,
    sent,
    /** The answers the push service gives `endpoint` next, in order. */
    answer(endpoint: string, ...answers: (PushResponse | Error)[]) {
      scripts.set(endpoint, answers)
    },
    clear() {
      sent.length = 0
      scripts.clear()
    },
  }
}
