// An owner's invites (docs/product.md §15): made by the team's call, with one SMS (no code) through the
// sign-in's SMS outbox; used by the invited number's next sign-in (its membership made then, in the
// sign-in's transaction), cancelled by an owner, or left to expire after 7 days. Bounds, counted in
// the database (every instance alike): 20 invites a day per owner (rate_events), 3 pending per number
// (the invites themselves, under the number's lock); a refused invite sends nothing.
import { and, asc, eq, gt, lte } from 'drizzle-orm'
import type { Invite, Role } from '../../contract/team.ts'
import { addUser } from '../db/accounts.ts'
import type { Db } from '../db/client.ts'
import { stores, users } from '../db/schema.ts'
import { invites } from '../db/schema-team.ts'
import { messages } from '../errors.ts'
import { maskPhone } from '../messages/transport.ts'
import { dayMs, lockKey, type Refusal, take } from '../rate-limit.ts'
import { phoneIsMember } from '../store-access.ts'
import { writeTeamLine } from './log.ts'
import { type Actor, putMember } from './members.ts'

/** How long an invite may be used. */
export const inviteDays = 7
export const inviteMs = inviteDays * dayMs

export interface InviteLimits {
  perOwnerPerDay: number
  pendingPerNumber: number
}
export const inviteLimits: InviteLimits = { perOwnerPerDay: 20, pendingPerNumber: 3 }

export interface NewInvite {
  storeId: number
  phone: string
  role: Role
  name: string | null
  showsMoney: boolean
}

export type InviteOutcome =
  | { ok: true; id: number; expiresAt: Date; storeName: string }
  | { ok: false; member: true }
  | { ok: false; refusal: Refusal }

/** The SMS an invitee gets: the store, the app's address; never a code. */
export const inviteText = (storeName: string, appUrl: string) =>
  `[빨래방 매출] ${storeName} 매출 앱에 초대되었습니다. ${appUrl} 에서 이 번호로 로그인해 주세요 (${inviteDays}일 안에).`

/** Makes an invite (replacing a pending one of the same number to the same store), or says why not. */
export async function createInvite(
  db: Db,
  invite: NewInvite,
  owner: NonNullable<Actor>,
  at: Date,
  limits: InviteLimits = inviteLimits,
): Promise<InviteOutcome> {
  return db.transaction(async (tx): Promise<InviteOutcome> => {
    await lockKey(tx, `invite-phone:${invite.phone}`)
    if (await phoneIsMember(tx, invite.storeId, invite.phone)) return { ok: false, member: true }
    const pending = await tx
      .select({ storeId: invites.storeId, expiresAt: invites.expiresAt })
      .from(invites)
      .where(and(eq(invites.phone, invite.phone), gt(invites.expiresAt, at)))
      .orderBy(asc(invites.expiresAt))
    const others = pending.filter((row) => row.storeId !== invite.storeId)
    if (others.length >= limits.pendingPerNumber) {
      const until = others[others.length - limits.pendingPerNumber]?.expiresAt.getTime() ?? at.getTime()
      return { ok: false, refusal: { until, message: messages.tooManyInvitesForNumber } }
    }
    const refusal = await take(tx, at, {
      key: `invite:${owner.id}`,
      limit: limits.perOwnerPerDay,
      windowMs: dayMs,
      message: messages.tooManyInvites,
    })
    if (refusal) return { ok: false, refusal }
    await tx.delete(invites).where(and(eq(invites.phone, invite.phone), eq(invites.storeId, invite.storeId)))
    const expiresAt = new Date(at.getTime() + inviteMs)
    const [made] = await tx
      .insert(invites)
      .values({ ...invite, invitedBy: owner.id, createdAt: at, expiresAt })
      .returning({ id: invites.id })
    const [store] = await tx.select({ name: stores.name }).from(stores).where(eq(stores.id, invite.storeId))
    if (!made || !store) throw new Error('invite not made')
    await writeTeamLine(tx, {
      storeId: invite.storeId,
      action: 'invited',
      actor: owner,
      subject: { id: null, name: invite.name, phone: invite.phone },
      role: invite.role,
      showsMoney: invite.showsMoney,
      at,
    })
    return { ok: true, id: made.id, expiresAt, storeName: store.name }
  })
}

/** The store's pending invites, soonest to expire first. */
export async function pendingInvites(db: Db, storeId: number, at: Date): Promise<Invite[]> {
  const rows = await db
    .select({ id: invites.id, phone: invites.phone, role: invites.role, expiresAt: invites.expiresAt })
    .from(invites)
    .where(and(eq(invites.storeId, storeId), gt(invites.expiresAt, at)))
    .orderBy(asc(invites.expiresAt), asc(invites.id))
  return rows.map((row) => ({ ...row, phone: maskPhone(row.phone), expiresAt: row.expiresAt.toISOString() }))
}

/** Cancels a pending invite of the store; false when there is none of that id. */
export async function cancelInvite(db: Db, storeId: number, id: number, owner: Actor, at: Date) {
  return db.transaction(async (tx) => {
    const [gone] = await tx
      .delete(invites)
      .where(and(eq(invites.storeId, storeId), eq(invites.id, id), gt(invites.expiresAt, at)))
      .returning()
    if (!gone) return false
    await writeTeamLine(tx, {
      storeId,
      action: 'inviteCancelled',
      actor: owner,
      subject: { id: null, name: gone.name, phone: gone.phone },
      at,
    })
    return true
  })
}

/** Whether the number has an invite it may still use (a sign-in code is then sent to it). */
export async function hasPendingInvite(db: Db, phone: string, at: Date) {
  const [row] = await db
    .select({ id: invites.id })
    .from(invites)
    .where(and(eq(invites.phone, phone), gt(invites.expiresAt, at)))
    .limit(1)
  return row !== undefined
}

/**
 * At a sign-in with the right code (in its transaction): the number's pending invites become its
 * memberships (a store it is already a member of stays as it is), and a number unknown to the server
 * becomes a user (named as its first invite says). Returns the user's id, or undefined when the number
 * is not a user and has no invite.
 */
export async function acceptInvites(db: Db, phone: string, at: Date): Promise<number | undefined> {
  const pending = await db
    .select()
    .from(invites)
    .where(and(eq(invites.phone, phone), gt(invites.expiresAt, at)))
    .orderBy(asc(invites.createdAt), asc(invites.id))
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.phone, phone))
  if (!user && pending.length === 0) return undefined
  const userId =
    user?.id ?? (await addUser(db, { phone, name: pending.find((i) => i.name)?.name ?? maskPhone(phone) }))
  for (const invite of pending) {
    await putMember(
      db,
      {
        storeId: invite.storeId,
        userId,
        role: invite.role,
        showsMoney: invite.showsMoney,
        name: invite.name,
        invitedAt: invite.createdAt,
      },
      null,
      at,
      true,
    )
  }
  await db.delete(invites).where(eq(invites.phone, phone))
  return userId
}

/** Deletes the invites that expired (the hourly sweep). */
export async function sweepInvites(db: Db, now: Date) {
  await db.delete(invites).where(lte(invites.expiresAt, now))
}
