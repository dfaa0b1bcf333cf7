// The wire contract of docs/product.md §5. The server validates with these schemas; the web app
// imports their types only (`import type`), so none of this reaches the browser bundle.
import { type Static, Type } from 'typebox'

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
