// Who may see which store: the one owner of that rule. A user sees exactly the stores they are a member
// of (owner or staff); a store they are not a member of and a store that does not exist look the same,
// so store ids cannot be probed. The profile lists `storesOf`; every call about one store asks
// `storeAccess`.
import { and, asc, eq, sql } from 'drizzle-orm'
import type { Db } from './db/client.ts'
import { memberships, stores, usageYears } from './db/schema.ts'

/** The stores a user may see, in the profile's order (which names the store a sign-in opens, `storeSignInOpens`). */
export const storesOf = (db: Db, userId: number) =>
  db
    .select({ id: stores.id, name: stores.name, images: stores.images, role: memberships.role })
    .from(memberships)
    .innerJoin(stores, eq(stores.id, memberships.storeId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(stores.id))
    .$dynamic()

/**
 * The membership check of a store's usage, with the revision of its year (usage_years.version, 0 before
 * the year's first record) in the same prepared statement, planned once: the only database work a
 * repeated answer or a 304 costs.
 */
export function storeAccess(db: Db) {
  const statement = db
    .select({ revision: sql<string | number>`coalesce(${usageYears.version}, 0)` })
    .from(memberships)
    .leftJoin(
      usageYears,
      and(eq(usageYears.storeId, memberships.storeId), eq(usageYears.year, sql.placeholder('year'))),
    )
    .where(
      and(
        eq(memberships.userId, sql.placeholder('userId')),
        eq(memberships.storeId, sql.placeholder('storeId')),
      ),
    )
    .prepare('usage_member_version')
  const role = db
    .select({ role: memberships.role })
    .from(memberships)
    .where(
      and(
        eq(memberships.userId, sql.placeholder('userId')),
        eq(memberships.storeId, sql.placeholder('storeId')),
      ),
    )
    .prepare('store_member_role')
  return {
    /**
     * Whether the user owns the store (a membership with the owner role): who may manage its devices
     * (docs/product.md §11). Staff, strangers and a store that does not exist are all "no": the 403.
     */
    async isOwner(userId: number, storeId: number): Promise<boolean> {
      const [row] = await role.execute({ userId, storeId })
      return row?.role === 'owner'
    },
    /** Whether the user may see the store (owner or staff): who may set its alerts for themselves. */
    async isMember(userId: number, storeId: number): Promise<boolean> {
      const [row] = await role.execute({ userId, storeId })
      return row !== undefined
    },
    /**
     * The revision of a store's year when the user may see the store; undefined when not (not a member,
     * or no such store): the caller answers 403.
     */
    async yearRevisionFor(userId: number, storeId: number, year: number): Promise<number | undefined> {
      const [row] = await statement.execute({ userId, storeId, year })
      return row ? Number(row.revision) : undefined
    },
  }
}

export type StoreAccess = ReturnType<typeof storeAccess>
