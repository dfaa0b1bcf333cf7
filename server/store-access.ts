// Who may see which store: the one owner of that rule. A user sees exactly the stores they are a member
// of (owner, manager or staff; docs/product.md §15), won amounts only when `seesMoney`; a store they are not a member of and a store that does not exist look the same,
// so store ids cannot be probed. The profile lists `storesOf`; every call about one store asks
// `storeAccess`. The queries that join the rule into their own statement (set-based, one statement as
// before) take its SQL fragments: `isMemberSql`, `storesOfSql`, `everyMembershipSql`, `hasMembersSql`.
// No other server file names the memberships table in a query (tests/server/architecture.test.ts).
import { type AnyColumn, and, asc, eq, type SQL, sql } from 'drizzle-orm'
import type { Role } from '../contract/team.ts'
import { type Db, queryRows } from './db/client.ts'
import { memberships, stores, usageYears } from './db/schema.ts'

/** The stores a user may see, in the profile's order (which names the store a sign-in opens, `storeSignInOpens`). */
export const storesOf = (db: Db, userId: number) =>
  db
    .select({
      id: stores.id,
      name: stores.name,
      images: stores.images,
      role: memberships.role,
      // Sent only when false (contract/api.ts): the profile of everyone else is as before.
      showsMoney: sql<
        false | undefined
      >`case when ${seesMoneyOf(sql`${memberships.role}`, sql`${memberships.showsMoney}`)} then null else false end`,
    })
    .from(memberships)
    .innerJoin(stores, eq(stores.id, memberships.storeId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(stores.id))
    .$dynamic()

/** The stores of `storesOf` as the profile sends them: `showsMoney` only when false (contract/api.ts). */
export const profileStores = async (db: Db, userId: number) =>
  (await storesOf(db, userId)).map(({ showsMoney, ...store }) =>
    showsMoney === false ? { ...store, showsMoney } : store,
  )

/** SQL: whether a membership of that role and setting sees won amounts: owners and managers always do. */
const seesMoneyOf = (role: SQL, showsMoney: SQL) => sql`(${role} <> 'staff' or ${showsMoney})`

/** SQL: whether the user may see the store's won amounts (a boolean): a member who `seesMoney`. */
export const seesMoneySql = (userId: number | SQL | AnyColumn, storeId: number | SQL | AnyColumn) =>
  sql`exists (select 1 from ${memberships} m where m.user_id = ${userId} and m.store_id = ${storeId} and ${seesMoneyOf(sql`m.role`, sql`m.shows_money`)})`

/** SQL: whether the user may see the store (a boolean), for a statement that checks it in its own query. */
export const isMemberSql = (userId: number | SQL | AnyColumn, storeId: number | SQL | AnyColumn) =>
  sql`exists (select 1 from ${memberships} m where m.user_id = ${userId} and m.store_id = ${storeId})`

/** SQL: the stores a user may see, as a table `(store_id)` to select from or join (give it an alias). */
export const storesOfSql = (userId: number) =>
  sql`(select store_id from ${memberships} where user_id = ${userId})`

/**
 * SQL: every membership, as a table `(user_id, store_id, role, sees_money)` to select from or join
 * (give it an alias).
 */
export const everyMembershipSql = sql`(select user_id, store_id, role, ${seesMoneyOf(sql`role`, sql`shows_money`)} as sees_money from ${memberships})`

/** SQL: whether a store has any member (a boolean): the stores the alerts evaluate. */
export const hasMembersSql = (storeId: SQL | AnyColumn) =>
  sql`exists (select 1 from ${memberships} m where m.store_id = ${storeId})`

/**
 * The membership check of a store's usage, with the revision of its year (usage_years.version, 0 before
 * the year's first record) in the same prepared statement, planned once: the only database work a
 * repeated answer or a 304 costs.
 */
export function storeAccess(db: Db) {
  const statement = db
    .select({
      revision: sql<string | number>`coalesce(${usageYears.version}, 0)`,
      seesMoney: sql<boolean>`${seesMoneyOf(sql`${memberships.role}`, sql`${memberships.showsMoney}`)}`,
    })
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
    .select({ role: memberships.role, showsMoney: memberships.showsMoney })
    .from(memberships)
    .where(
      and(
        eq(memberships.userId, sql.placeholder('userId')),
        eq(memberships.storeId, sql.placeholder('storeId')),
      ),
    )
    .prepare('store_member_role')
  return {
    /** The user's role in the store and whether they see its won amounts; undefined: not a member. */
    async memberOf(userId: number, storeId: number): Promise<{ role: Role; seesMoney: boolean } | undefined> {
      const [row] = await role.execute({ userId, storeId })
      return row && { role: row.role, seesMoney: row.role !== 'staff' || row.showsMoney }
    },
    /** Whether the user may manage the store's devices and machines: an owner or a manager (§15). */
    async mayManage(userId: number, storeId: number): Promise<boolean> {
      const [row] = await role.execute({ userId, storeId })
      return row?.role === 'owner' || row?.role === 'manager'
    },
    /** Whether the user may see the store's won amounts (a member who `seesMoney`). */
    async seesMoney(userId: number, storeId: number): Promise<boolean> {
      const [row] = await role.execute({ userId, storeId })
      return row !== undefined && (row.role !== 'staff' || row.showsMoney)
    },
    /**
     * Whether the user owns the store (a membership with the owner role): who may manage its devices
     * (docs/product.md §11). Staff, strangers and a store that does not exist are all "no": the 403.
     */
    async isOwner(userId: number, storeId: number): Promise<boolean> {
      const [row] = await role.execute({ userId, storeId })
      return row?.role === 'owner'
    },
    /** Whether the user may see the store (any role): who may set its alerts for themselves. */
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
    /**
     * As `yearRevisionFor`, with whether the member sees won amounts (the usage call refuses one who
     * does not, docs/product.md §15): one statement still.
     */
    async yearAccessFor(userId: number, storeId: number, year: number) {
      const [row] = await statement.execute({ userId, storeId, year })
      return row ? { revision: Number(row.revision), seesMoney: row.seesMoney === true } : undefined
    },
  }
}

export type StoreAccess = ReturnType<typeof storeAccess>

/** One member of a store, as the team's calls read it (docs/product.md §15). */
export interface MemberRow {
  userId: number
  phone: string
  userName: string
  name: string | null
  role: Role
  showsMoney: boolean
  invitedAt: Date | null
  joinedAt: Date
  lastSeenAt: Date | null
}

const memberColumns = sql`m.user_id as "userId", u.phone, u.name as "userName", m.name, m.role,
  m.shows_money as "showsMoney", m.invited_at as "invitedAt", m.created_at as "joinedAt"`

/**
 * The store's members, owners first, then by when they joined; the last seen is the newest refresh
 * token of their sign-ins (made at each sign-in and each refresh), so that reading it writes nothing.
 */
export async function membersOf(db: Db, storeId: number): Promise<MemberRow[]> {
  const rows = await queryRows<MemberRow>(
    db,
    sql`select ${memberColumns},
          (select max(r.created_at) from refresh_tokens r join sign_ins s on s.id = r.family_id
            where s.user_id = m.user_id) as "lastSeenAt"
        from ${memberships} m join users u on u.id = m.user_id
        where m.store_id = ${storeId}
        order by case m.role when 'owner' then 0 when 'manager' then 1 else 2 end, m.created_at, m.user_id`,
  )
  return rows.map((row) => ({
    ...row,
    invitedAt: row.invitedAt && new Date(row.invitedAt),
    joinedAt: new Date(row.joinedAt),
    lastSeenAt: row.lastSeenAt && new Date(row.lastSeenAt),
  }))
}

/** One membership with the user's phone and name, or undefined; `db` may be a transaction. */
export async function membershipOf(db: Db, storeId: number, userId: number) {
  const [row] = await queryRows<Omit<MemberRow, 'lastSeenAt' | 'joinedAt' | 'invitedAt'>>(
    db,
    sql`select ${memberColumns} from ${memberships} m join users u on u.id = m.user_id
        where m.store_id = ${storeId} and m.user_id = ${userId}`,
  )
  return row
}

/** How many owners the store has; `db` may be a transaction. */
export async function ownersOf(db: Db, storeId: number): Promise<number> {
  const [row] = await queryRows<{ n: number | string }>(
    db,
    sql`select count(*) as n from ${memberships} where store_id = ${storeId} and role = 'owner'`,
  )
  return Number(row?.n ?? 0)
}

/** Whether the number is a member of the store (by phone); `db` may be a transaction. */
export async function phoneIsMember(db: Db, storeId: number, phone: string): Promise<boolean> {
  const [row] = await queryRows<{ found: boolean }>(
    db,
    sql`select exists (select 1 from ${memberships} m join users u on u.id = m.user_id
        where m.store_id = ${storeId} and u.phone = ${phone}) as found`,
  )
  return row?.found === true
}
