// Long by nature: the types of every call of the API, in one file the server and the app both read.
// The wire contract of docs/product.md §5. The server validates with these schemas; the web app
// imports their types only (`import type`), so none of this reaches the browser bundle.
import { type Static, Type } from 'typebox'
import { MachineReport, MachineStateSchema, PaymentMethodSchema, TerminalStateSchema } from './machines.ts'

export const ErrorBody = Type.Object({ message: Type.String() })
export type ErrorBody = Static<typeof ErrorBody>

/** A mobile number as typed: digits with optional hyphens or spaces, 10 or 11 digits in all. */
export const Phone = Type.String({ minLength: 10, maxLength: 20, pattern: '^0[0-9 -]+$' })

export const PhoneRequest = Type.Object({ phone: Phone }, { additionalProperties: false })
export const PhoneAnswer = Type.Object({ expiresIn: Type.Integer() })
export type PhoneAnswer = Static<typeof PhoneAnswer>

export const SignRequest = Type.Object(
  { phone: Phone, code: Type.String({ pattern: '^[0-9]{4}$' }) },
  { additionalProperties: false },
)

export const TokenPair = Type.Object({ access: Type.String(), refresh: Type.String() })
export const SignAnswer = Type.Object({
  token: TokenPair,
  firstStoreId: Type.Optional(
    Type.Integer({
      minimum: 1,
      description:
        "Our server's addition: the id of the store a sign-in opens (the first of the profile's stores, GET /user), so that the app can ask for its figures while it fetches the profile. Absent when the user has no store. Clients must not rely on it (other servers do not send it).",
    }),
  ),
})
export type SignAnswer = Static<typeof SignAnswer>

/**
 * The refresh call's query: the refresh token only. The client's attempt key (docs/product.md §4.3)
 * travels in the cookie `refreshRetryKey`, never in the URL, which proxies and APM tools log; a
 * `retry` in the query is ignored (a server accepts and ignores other parameters).
 */
export const RefreshQuery = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) })

export const SignOutQuery = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) })

export const User = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  phone: Type.String(),
  /** Path under the image base address, or null. */
  image: Type.Union([Type.String(), Type.Null()]),
})
export type User = Static<typeof User>

export const Store = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  /** Paths under the image base address; the first is the thumbnail. */
  images: Type.Array(Type.String()),
  role: Type.Optional(
    Type.Union([Type.Literal('owner'), Type.Literal('manager'), Type.Literal('staff')], {
      description:
        "Our server's addition: the user's role in the store (docs/product.md §15). An owner runs the team; an owner or a manager manages the store's devices. Clients must not rely on it (other servers do not send it).",
    }),
  ),
  showsMoney: Type.Optional(
    Type.Literal(false, {
      description:
        "Our server's addition, sent only when false: the owner hides won amounts from this member (docs/product.md §15).",
    }),
  ),
})
export type Store = Static<typeof Store>

export const ProfileAnswer = Type.Object({ user: User, stores: Type.Array(Store) })
export type ProfileAnswer = Static<typeof ProfileAnswer>

export const UsageParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2147483647 }) })
export const UsageQuery = Type.Object({ year: Type.Integer({ minimum: 2000, maximum: 2100 }) })

export const Usage = Type.Object({
  /** ISO 8601 in UTC, always ending in Z, e.g. 2026-03-01T09:15:00.000Z */
  createdAt: Type.String(),
  /** Won. */
  amount: Type.Integer(),
})
export type Usage = Static<typeof Usage>

export const UsageAnswer = Type.Object({ usages: Type.Array(Usage) })
export type UsageAnswer = Static<typeof UsageAnswer>

// The changes call (docs/operations.md "Live changes", docs/product.md decisions 77–82): our server's addition. A client that
// finds no such call (404) keeps refetching the year.

/** The revision of a store's year, as the usage answer's `Usage-Revision` header and `rev` say. */
export const usageRevisionHeader = 'usage-revision'

export const ChangesQuery = Type.Object({
  year: Type.Integer({ minimum: 2000, maximum: 2100 }),
  after: Type.Integer({
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    description: "The revision the client has (0: none, the answer lists the year's records as puts).",
  }),
  wait: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 25,
      default: 0,
      description: 'Seconds to hold the call while nothing changed after `after` (0: answer at once).',
    }),
  ),
})
export type ChangesQuery = Static<typeof ChangesQuery>

export const UsageChange = Type.Object({
  op: Type.Union([Type.Literal('put'), Type.Literal('del')]),
  /** As in the usage answer: ISO 8601 in UTC with milliseconds and Z. */
  createdAt: Type.String(),
  amount: Type.Integer(),
})
export type UsageChange = Static<typeof UsageChange>

export const ChangesAnswer = Type.Union([
  Type.Object({
    rev: Type.Integer({ description: 'The revision after these changes.' }),
    changes: Type.Array(UsageChange, { description: 'In revision order.' }),
    count: Type.Integer({
      description: "The year's record count after these changes (the client's checksum).",
    }),
    sum: Type.Integer({ description: "The year's amount sum after these changes (the client's checksum)." }),
  }),
  Type.Object({
    rev: Type.Integer(),
    reset: Type.Literal(true, {
      description:
        'The changes after `after` are not kept (too old, the year was rewritten, or `after` is above the revision): fetch the year again.',
    }),
  }),
])
export type ChangesAnswer = Static<typeof ChangesAnswer>

// The store's devices and what they post (docs/product.md §11). The owner's calls take the user's
// bearer token; the device's calls take the device's key (`Authorization: Bearer dk_…`).

export const DeviceParams = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: 2147483647 }),
  deviceId: Type.Integer({ minimum: 1, maximum: 2147483647 }),
})

/**
 * A device's name as the owner gives it: 1 to 40 characters, not only spaces; our server also refuses
 * control characters and unpaired surrogates (text the database cannot keep).
 */
export const DeviceName = Type.String({ minLength: 1, maxLength: 40, pattern: '\\S' })

export const NewDeviceRequest = Type.Object({ name: DeviceName }, { additionalProperties: false })
export const NewDeviceAnswer = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  /** Single use, 10 minutes, bound to the store: shown to the owner, typed into the device. */
  pairingCode: Type.String(),
  /** ISO 8601 in UTC. */
  expiresAt: Type.String(),
})
export type NewDeviceAnswer = Static<typeof NewDeviceAnswer>

const Instant = Type.Union([Type.String(), Type.Null()])
export const Device = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  /** When the owner added it (ISO 8601 in UTC). */
  createdAt: Type.String(),
  /** Our addition: when it paired, or null while its code waits. */
  pairedAt: Instant,
  lastSeenAt: Instant,
  /** The newest sale time among the sales it delivered. */
  lastSaleAt: Instant,
  /** Sales waiting in its queue, as its last heartbeat said. */
  pending: Type.Union([Type.Integer(), Type.Null()]),
  /** Its clock minus the server's, in ms, from the `sentAt` of its last batch or heartbeat. */
  skewMs: Type.Union([Type.Integer(), Type.Null()]),
  revokedAt: Instant,
  /** Our addition (docs/product.md §14): its payment terminal as it last said, and since when; null never said. */
  terminal: Type.Union([TerminalStateSchema, Type.Null()]),
  terminalSince: Instant,
  /** Our addition: the machines whose last reported state came from it, by name. */
  machines: Type.Array(
    Type.Object({ machine: Type.String(), state: Type.Union([MachineStateSchema, Type.Null()]) }),
  ),
})
export type Device = Static<typeof Device>
export const DevicesAnswer = Type.Object({ devices: Type.Array(Device) })
export type DevicesAnswer = Static<typeof DevicesAnswer>

export const RenameDeviceRequest = Type.Object({ name: DeviceName }, { additionalProperties: false })

export const PairRequest = Type.Object({ code: Type.String({ minLength: 1, maxLength: 40 }) })
export const PairAnswer = Type.Object({
  deviceId: Type.Integer(),
  storeId: Type.Integer(),
  /** The device's key, shown this once (the server keeps its hash only): `dk_` and 43 characters. */
  key: Type.String(),
})
export type PairAnswer = Static<typeof PairAnswer>

/**
 * A sale as a device sends it: `id` its own (a string of 1 to 100 visible characters, or a whole
 * number), stable across retries; `createdAt` an ISO 8601 instant with an offset; `amount` whole won,
 * negative for a refund. Each is checked by itself (a bad one is listed in `rejected`), so the
 * schema takes anything here.
 */
export const Sale = Type.Object({
  id: Type.Union([Type.String(), Type.Integer()]),
  createdAt: Type.String(),
  amount: Type.Integer(),
  /** Our addition (docs/product.md §14): the machine it was made on, 1–32 visible characters. */
  machine: Type.Optional(Type.String()),
  /** Our addition: how it was paid (`card`, `cash`, `coin`, `mobile`, `point`, `other`). */
  method: Type.Optional(PaymentMethodSchema),
  /** Our addition: for a refund (a negative amount), the `id` of the device's sale it refunds. */
  refundOf: Type.Optional(Type.Union([Type.String(), Type.Integer()])),
})
export type Sale = Static<typeof Sale>

export const SalesRequest = Type.Object({
  sales: Type.Array(Type.Unknown(), {
    description: 'At most 500 sales (400 beyond), in a body of at most 64 KiB (413 beyond).',
  }),
  /** The device's clock when it sent this attempt: gives the skew. Not part of the batch's identity. */
  sentAt: Type.Optional(Type.String({ maxLength: 40 })),
})
export type SalesRequest = { sales: Sale[]; sentAt?: string }

export const RejectedSale = Type.Object({
  /** The sale's id as sent, or null when it had none. */
  id: Type.Union([Type.String(), Type.Number(), Type.Null()]),
  message: Type.String(),
})
export const SalesAnswer = Type.Object({
  /** Sales stored by this batch. */
  accepted: Type.Integer(),
  /** Sales already stored (an earlier batch, or earlier in this one): not stored again. */
  duplicates: Type.Integer(),
  rejected: Type.Array(RejectedSale),
  /** The server's clock when it took the batch (ISO 8601 in UTC). */
  serverTime: Type.String(),
  /**
   * The database's generation: it changes when the database may have lost sales it acknowledged (a
   * restore, an unclean start of the embedded database). A device that sees it change sends again what
   * it was acknowledged in the last 7 days; sales already stored count as duplicates.
   */
  generation: Type.String({
    description:
      "The database's generation (an opaque token). When it differs from the last one the device saw, the database may have lost acknowledged sales: send again those acknowledged in the last 7 days (stored ones count as duplicates).",
  }),
})
export type SalesAnswer = Static<typeof SalesAnswer>

export const HeartbeatRequest = Type.Object({
  pending: Type.Integer({ minimum: 0, maximum: 100000000 }),
  /** Optional, as in a batch: the device's clock, for the skew. */
  sentAt: Type.Optional(Type.String({ maxLength: 40 })),
  /** Our addition (docs/product.md §14): the states of the store's machines it watches, each named once (at most
   * domain/machines.ts `maxMachinesPerHeartbeat`). */
  machines: Type.Optional(Type.Array(MachineReport, { maxItems: 64 })),
  /** Our addition: its payment terminal. */
  terminal: Type.Optional(TerminalStateSchema),
  /** Our addition: the payments that failed since its last heartbeat. */
  failedPayments: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
})
export type HeartbeatRequest = Static<typeof HeartbeatRequest>

/** The heartbeat's answer header carrying the database's generation (as `generation` in SalesAnswer). */
export const generationHeader = 'database-generation'

/** The Idempotency-Key of a batch: 1 to 255 visible ASCII characters. */
export const idempotencyKeyPattern = '^[\\x21-\\x7e]{1,255}$'

// Web Push and alerts (docs/product.md §12). Every call takes the user's bearer token; subscriptions and
// settings are the caller's own, whatever their role.

export const PushKeyAnswer = Type.Object({
  key: Type.String({
    description: "The server's VAPID public key (base64url, 65 bytes): the browser's applicationServerKey.",
  }),
  mark: Type.String({
    description:
      "The caller's mark (base64url): the same for a user every time, another for every other user, and telling nothing of whose it is. The app keeps it on the browser where the user chose alerts, to send the subscription again only for them.",
  }),
})
export type PushKeyAnswer = Static<typeof PushKeyAnswer>

/** A push service's address: https, on a known push service or an origin of PUSH_ALLOWED_ORIGINS. */
const PushEndpoint = Type.String({ minLength: 9, maxLength: 1024, pattern: '^https://' })

/** The browser's `PushSubscription.toJSON()`. */
export const PushSubscriptionRequest = Type.Object({
  endpoint: PushEndpoint,
  expirationTime: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  keys: Type.Object({
    /** The browser's P-256 public key, base64url (65 bytes). */
    p256dh: Type.String({ minLength: 86, maxLength: 90 }),
    /** The auth secret, base64url (16 bytes). */
    auth: Type.String({ minLength: 22, maxLength: 24 }),
  }),
})
export type PushSubscriptionRequest = Static<typeof PushSubscriptionRequest>

export const PushUnsubscribeRequest = Type.Object({ endpoint: PushEndpoint })

export const PushTestAnswer = Type.Object({
  subscriptions: Type.Integer({
    description: 'How many subscriptions of the caller (their signed-in browsers) the test was sent to.',
  }),
})
export type PushTestAnswer = Static<typeof PushTestAnswer>

export * from './alerts.ts'

// The stores overview's call (GET /api/v0/stores/overview) and its stream: contract/overview.ts.
export * from './overview.ts'
