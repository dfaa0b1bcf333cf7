// The owner's team (docs/product.md §15): the members and pending invites of a store, an invite by
// phone (one SMS, no code), a member's role, name and money setting changed or the member removed, an
// invite cancelled, and the team's log. Registered in the signed-in scope; only an owner of the store
// may use them: a manager, staff, strangers and a store that does not exist get 403 alike.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { eq } from 'drizzle-orm'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { ErrorBody, UsageParams } from '../../contract/api.ts'
import {
  Invite,
  InviteParams,
  InviteRequest,
  MemberChange,
  MemberParams,
  MembersAnswer,
  TeamLogAnswer,
} from '../../contract/team.ts'
import { alertKindsOn, storeMemberSettings } from '../alerts/settings.ts'
import { users } from '../db/schema.ts'
import { ApiError, handleError, messages } from '../errors.ts'
import { maskPhone } from '../messages/transport.ts'
import { rateLimited } from '../rate-limit.ts'
import { normalizePhone } from '../sign-in/phone.ts'
import { membersOf } from '../store-access.ts'
import { cancelInvite, createInvite, inviteText, pendingInvites } from '../team/invites.ts'
import { readTeamLog } from '../team/log.ts'
import { type Actor, changeMember, removeMember } from '../team/members.ts'
import { keptName } from '../validation.ts'

/** The Korean message of a field these calls read; the rest as every call answers them. */
const fieldMessages: Record<string, string> = {
  id: messages.storeId,
  phone: messages.phone,
  role: messages.role,
  name: messages.memberName,
  showsMoney: messages.showsMoney,
  userId: messages.memberNotFound,
  inviteId: messages.inviteNotFound,
}

function teamError(error: FastifyError | ApiError, request: FastifyRequest, reply: FastifyReply) {
  if (!(error instanceof ApiError) && error.validation) {
    for (const issue of error.validation) {
      const params = issue.params as { missingProperty?: string; additionalProperty?: string }
      if (params.additionalProperty) return reply.code(400).send({ message: messages.teamChange })
      const field = params.missingProperty ?? issue.instancePath.split('/')[1] ?? ''
      const message = fieldMessages[field]
      if (!message) continue
      const status = field === 'userId' || field === 'inviteId' ? 404 : 400
      return reply.code(status).send({ message })
    }
  }
  return handleError(error, request, reply)
}

/**
 * The body as sent, before validation, whose coercion would drop an unknown field: refused here, so
 * that a misspelt `showMoney` is not taken as "leave it as it is".
 */
const onlyFields =
  (fields: string[]) =>
  async (request: FastifyRequest): Promise<void> => {
    const body = request.body
    if (!body || typeof body !== 'object' || Array.isArray(body)) return
    if (Object.keys(body).some((key) => !fields.includes(key))) throw new ApiError(400, messages.teamChange)
  }

const Refusal = (description: string) => ({ ...ErrorBody, description })

/** A change or removal of a member the store refused: the member not found (404), its last owner (409). */
function refuseMemberChange(outcome: unknown) {
  if (outcome === 'notFound') throw new ApiError(404, messages.memberNotFound)
  if (outcome === 'lastOwner') throw new ApiError(409, messages.lastOwner)
}

export const teamRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.setErrorHandler(teamError)
  // On the id as validated (the schema reads `1e3` as 1000: a check on the raw text would miss it).
  app.addHook('preHandler', async (request) => {
    const { id } = request.params as { id: number }
    if (!(await app.storeAccess.isOwner(request.userId, id))) throw new ApiError(403, messages.teamOwnerOnly)
  })
  const actorOf = async (request: FastifyRequest): Promise<NonNullable<Actor>> => {
    const [user] = await app.db.select({ name: users.name }).from(users).where(eq(users.id, request.userId))
    return { id: request.userId, name: user?.name ?? '' }
  }

  app.get(
    '/store/:id/members',
    {
      schema: {
        summary: "The store's members and pending invites (owners only)",
        description:
          'Members owners first, then by when they joined; numbers masked but the last 4 digits. `lastSeenAt` is the ' +
          "member's last sign-in or token refresh; `alerts` the kinds of alerts the member has on for the store (their own " +
          'settings, the defaults when they never changed them). Invites soonest to expire first (docs/product.md §15).',
        params: UsageParams,
        response: { 200: MembersAnswer, 401: ErrorBody, 403: ErrorBody },
      },
    },
    async (request) => {
      const { id } = request.params
      const settings = await storeMemberSettings(app.db, id)
      const members = (await membersOf(app.db, id)).map((member) => ({
        userId: member.userId,
        phone: maskPhone(member.phone),
        name: member.name ?? member.userName,
        role: member.role,
        showsMoney: member.showsMoney,
        invitedAt: member.invitedAt?.toISOString() ?? null,
        joinedAt: member.joinedAt.toISOString(),
        lastSeenAt: member.lastSeenAt?.toISOString() ?? null,
        alerts: alertKindsOn(settings.of(member.userId, id)),
      }))
      return { members, invites: await pendingInvites(app.db, id, app.now()) }
    },
  )

  app.post(
    '/store/:id/invites',
    {
      schema: {
        summary: 'Invite a number to the store with a role (owners only)',
        description:
          'The number gets one SMS naming the store and the app (no code); its next sign-in within 7 days makes the store ' +
          'its own (a number the server does not know becomes a user then). Inviting a number again to the same store replaces its invite. ' +
          'At most 20 invites a day per owner and 3 pending per number (its invites to other stores): 429 beyond, with Retry-After.',
        params: UsageParams,
        body: InviteRequest,
        response: {
          201: Invite,
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
          409: Refusal('The number is already a member of the store'),
          429: Refusal('Too many invites: 20 a day per owner, 3 pending per number (Retry-After)'),
        },
      },
      preValidation: onlyFields(['phone', 'role', 'name', 'showsMoney']),
    },
    async (request, reply) => {
      const { id } = request.params
      const { role, showsMoney = true } = request.body
      const phone = normalizePhone(request.body.phone)
      const name = request.body.name === undefined ? null : keptName(request.body.name, messages.memberName)
      const now = app.now()
      const made = await createInvite(
        app.db,
        { storeId: id, phone, role, name, showsMoney },
        await actorOf(request),
        now,
      )
      if (!made.ok) {
        if ('member' in made) throw new ApiError(409, messages.alreadyMember)
        throw rateLimited(made.refusal, now)
      }
      const appUrl = app.config.appUrl ?? `${request.protocol}://${request.host}`
      app.smsOutbox.send(phone, inviteText(made.storeName, appUrl))
      return reply
        .code(201)
        .send({ id: made.id, phone: maskPhone(phone), role, expiresAt: made.expiresAt.toISOString() })
    },
  )

  app.patch(
    '/store/:id/members/:userId',
    {
      schema: {
        summary: "Change a member's role, name or money setting (owners only)",
        description:
          "Takes effect at once on every instance: a lowered member's held calls and streams of the store end within 2 s. " +
          'The store always keeps an owner: lowering its last one is a 409. `showsMoney` false hides won amounts from staff.',
        params: MemberParams,
        body: MemberChange,
        response: {
          204: Type.Null(),
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
          409: Refusal("The store's last owner"),
        },
      },
      preValidation: onlyFields(['role', 'name', 'showsMoney']),
    },
    async (request, reply) => {
      const { id, userId } = request.params
      const { role, showsMoney } = request.body
      const name =
        request.body.name === undefined ? undefined : keptName(request.body.name, messages.memberName)
      const actor = await actorOf(request)
      const outcome = await app.db.transaction((tx) =>
        changeMember(tx, id, userId, { role, name, showsMoney }, actor, app.now()),
      )
      refuseMemberChange(outcome)
      return reply.code(204).send(null)
    },
  )

  app.delete(
    '/store/:id/members/:userId',
    {
      schema: {
        summary: 'Remove a member from the store (owners only; an owner may leave if another owner stays)',
        description:
          "Takes effect at once on every instance: the member's held calls and streams of the store end within 2 s, their " +
          'next call about it is a 403, and their alerts of it stop. Removing the last owner is a 409. It reads no body ' +
          '(decision 228): whatever a client sends with it is ignored.',
        params: MemberParams,
        response: {
          204: Type.Null(),
          403: ErrorBody,
          404: ErrorBody,
          409: Refusal("The store's last owner"),
        },
      },
    },
    async (request, reply) => {
      const { id, userId } = request.params
      const actor = await actorOf(request)
      const outcome = await app.db.transaction((tx) => removeMember(tx, id, userId, actor, app.now()))
      refuseMemberChange(outcome)
      return reply.code(204).send(null)
    },
  )

  app.delete(
    '/store/:id/invites/:inviteId',
    {
      schema: {
        summary: 'Cancel a pending invite (owners only)',
        params: InviteParams,
        response: { 204: Type.Null(), 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (request, reply) => {
      const { id, inviteId } = request.params
      if (!(await cancelInvite(app.db, id, inviteId, await actorOf(request), app.now())))
        throw new ApiError(404, messages.inviteNotFound)
      return reply.code(204).send(null)
    },
  )

  app.get(
    '/store/:id/members/log',
    {
      schema: {
        summary: "The team's log: who invited, joined, changed or removed whom, newest first (owners only)",
        description:
          "At most the newest 500 lines; each kept a year. `by` null: the server's operator, or the invitee's own sign-in.",
        params: UsageParams,
        response: { 200: TeamLogAnswer, 401: ErrorBody, 403: ErrorBody },
      },
    },
    async (request) => ({ entries: await readTeamLog(app.db, request.params.id) }),
  )
}
