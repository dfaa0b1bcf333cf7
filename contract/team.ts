// The owner's team (docs/product.md §15): the calls' types. Our server's addition to the contract.
import { type Static, Type } from 'typebox'
import { AlertKind, Phone } from './api.ts'

export const RoleSchema = Type.Union([Type.Literal('owner'), Type.Literal('manager'), Type.Literal('staff')])
export type Role = Static<typeof RoleSchema>

const Instant = Type.String({ description: 'ISO 8601, UTC' })
const MaybeInstant = Type.Union([Instant, Type.Null()])
const MemberName = Type.String({ minLength: 1, maxLength: 40 })

export const Member = Type.Object({
  userId: Type.Integer(),
  /** Masked but the last 4 digits. */
  phone: Type.String(),
  /** The owner's name for the member, else the user's own. */
  name: Type.String(),
  role: RoleSchema,
  /** Whether won amounts reach the member (owners and managers always see them). */
  showsMoney: Type.Boolean(),
  /** When the invite that made the membership was sent; null: granted by an administrator. */
  invitedAt: MaybeInstant,
  joinedAt: Instant,
  /** The member's last sign-in or token refresh; null: none kept. */
  lastSeenAt: MaybeInstant,
  /**
   * The alert kinds the member has on for this store (their own settings, docs/product.md §12; a member
   * who never changed them has the defaults, every kind on), in the alerts screen's order. Read only.
   */
  alerts: Type.Array(AlertKind),
})
export type Member = Static<typeof Member>

export const Invite = Type.Object({
  id: Type.Integer(),
  phone: Type.String({ description: 'Masked but the last 4 digits' }),
  role: RoleSchema,
  expiresAt: Instant,
})
export type Invite = Static<typeof Invite>

export const MembersAnswer = Type.Object({ members: Type.Array(Member), invites: Type.Array(Invite) })
export type MembersAnswer = Static<typeof MembersAnswer>

export const InviteRequest = Type.Object(
  {
    phone: Phone,
    role: RoleSchema,
    name: Type.Optional(MemberName),
    showsMoney: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)
export type InviteRequest = Static<typeof InviteRequest>

export const MemberChange = Type.Object(
  {
    role: Type.Optional(RoleSchema),
    name: Type.Optional(MemberName),
    showsMoney: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)
export type MemberChange = Static<typeof MemberChange>

const Id = Type.Integer({ minimum: 1, maximum: 2147483647 })
export const MemberParams = Type.Object({ id: Id, userId: Id })
export const InviteParams = Type.Object({ id: Id, inviteId: Id })

export const TeamAction = Type.Union([
  Type.Literal('invited'),
  Type.Literal('inviteCancelled'),
  Type.Literal('joined'),
  Type.Literal('changed'),
  Type.Literal('removed'),
])
export type TeamAction = Static<typeof TeamAction>

export const TeamLogEntry = Type.Object({
  at: Instant,
  action: TeamAction,
  /** Who did it; null: the server's operator (an admin command) or, for `joined`, the invitee's own sign-in. */
  by: Type.Union([Type.String(), Type.Null()]),
  /** Whom it was about: their name, or their masked number when they had none yet. */
  who: Type.String(),
  phone: Type.String({ description: 'Masked but the last 4 digits' }),
  /** The role and money setting after it; null for a removal or a cancelled invite. */
  role: Type.Union([RoleSchema, Type.Null()]),
  showsMoney: Type.Union([Type.Boolean(), Type.Null()]),
})
export type TeamLogEntry = Static<typeof TeamLogEntry>

export const TeamLogAnswer = Type.Object({ entries: Type.Array(TeamLogEntry) })
export type TeamLogAnswer = Static<typeof TeamLogAnswer>
