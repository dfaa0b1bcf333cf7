// What changes a store's team (docs/product.md §15): a member added, changed or removed, each with its
// line in the team's log and, in the same transaction, a notification on `memberships_changed`
// (`store:user`) that every instance hears at commit (server/live/): the member's held calls and
// streams of that store read their access again at once. The store's team changes one at a time (an
// advisory lock of the store), so that "at least one owner" holds under concurrent calls.
import { and, eq, sql } from 'drizzle-orm'
import type { Role } from '../../contract/team.ts'
import type { Db } from '../db/client.ts'
import { memberships } from '../db/schema.ts'
import { membershipOf, ownersOf } from '../store-access.ts'
import { writeTeamLine } from './log.ts'

export type Actor = { id: number; name: string } | null

/** Serialises the changes of one store's team, across connections and instances. */
export const lockTeam = (db: Db, storeId: number) =>
  db.execute(sql`select pg_advisory_xact_lock(hashtext(${`team:${storeId}`}))`)

/** Tells every instance that the user's access to the store changed (delivered at commit). */
export const notifyMembershipChanged = (db: Db, storeId: number, userId: number) =>
  db.execute(sql`select pg_notify('memberships_changed', ${`${storeId}:${userId}`})`)

export interface NewMember {
  storeId: number
  userId: number
  role: Role
  showsMoney: boolean
  name: string | null
  invitedAt: Date | null
}

/**
 * Makes the user a member (a used invite, an admin's grant); a membership there already is given the
 * role (the grant) or kept as it is (`keep`: an invite of a member). Returns whether anything changed.
 */
export async function putMember(db: Db, member: NewMember, actor: Actor, at: Date, keep = false) {
  await lockTeam(db, member.storeId)
  const before = await membershipOf(db, member.storeId, member.userId)
  if (before && (keep || (before.role === member.role && before.showsMoney === member.showsMoney)))
    return false
  if (before) {
    await db
      .update(memberships)
      .set({ role: member.role, showsMoney: member.showsMoney })
      .where(and(eq(memberships.storeId, member.storeId), eq(memberships.userId, member.userId)))
  } else {
    await db.insert(memberships).values({ ...member, createdAt: at })
  }
  const after = await membershipOf(db, member.storeId, member.userId)
  if (!after) return false
  await writeTeamLine(db, {
    storeId: member.storeId,
    action: before ? 'changed' : 'joined',
    actor,
    subject: { id: member.userId, name: after.name ?? after.userName, phone: after.phone },
    role: after.role,
    showsMoney: after.showsMoney,
    at,
  })
  await notifyMembershipChanged(db, member.storeId, member.userId)
  return true
}

export type ChangeOutcome = 'changed' | 'unchanged' | 'notFound' | 'lastOwner'

/** Changes a member's role, name or money setting; the store's last owner keeps the owner role. */
export async function changeMember(
  db: Db,
  storeId: number,
  userId: number,
  change: { role?: Role | undefined; name?: string | undefined; showsMoney?: boolean | undefined },
  actor: Actor,
  at: Date,
): Promise<ChangeOutcome> {
  await lockTeam(db, storeId)
  const before = await membershipOf(db, storeId, userId)
  if (!before) return 'notFound'
  const role = change.role ?? before.role
  if (before.role === 'owner' && role !== 'owner' && (await ownersOf(db, storeId)) <= 1) return 'lastOwner'
  const showsMoney = change.showsMoney ?? before.showsMoney
  const name = change.name ?? before.name
  if (role === before.role && showsMoney === before.showsMoney && name === before.name) return 'unchanged'
  await db
    .update(memberships)
    .set({ role, showsMoney, name })
    .where(and(eq(memberships.storeId, storeId), eq(memberships.userId, userId)))
  await writeTeamLine(db, {
    storeId,
    action: 'changed',
    actor,
    subject: { id: userId, name: name ?? before.userName, phone: before.phone },
    role,
    showsMoney,
    at,
  })
  await notifyMembershipChanged(db, storeId, userId)
  return 'changed'
}

/** Removes a member; the store's last owner stays, unless the server's operator (no actor) removes them. */
export async function removeMember(
  db: Db,
  storeId: number,
  userId: number,
  actor: Actor,
  at: Date,
): Promise<'removed' | 'notFound' | 'lastOwner'> {
  await lockTeam(db, storeId)
  const before = await membershipOf(db, storeId, userId)
  if (!before) return 'notFound'
  if (actor && before.role === 'owner' && (await ownersOf(db, storeId)) <= 1) return 'lastOwner'
  await db.delete(memberships).where(and(eq(memberships.storeId, storeId), eq(memberships.userId, userId)))
  await writeTeamLine(db, {
    storeId,
    action: 'removed',
    actor,
    subject: { id: userId, name: before.name ?? before.userName, phone: before.phone },
    at,
  })
  await notifyMembershipChanged(db, storeId, userId)
  return 'removed'
}
