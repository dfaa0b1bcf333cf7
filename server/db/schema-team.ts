// The team's tables (docs/product.md §15): part of the schema, in a file of their own for schema.ts's
// length; drizzle-kit generates the migrations from both (drizzle.config.ts).
import { sql } from 'drizzle-orm'
import { bigint, boolean, check, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core'
import { stores, users } from './schema.ts'

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow()

/**
 * An owner's invite of a phone number to a store (docs/product.md §15): used by that number's next
 * sign-in within 7 days (the membership is made then, and the row deleted), or cancelled by an owner.
 * A number unknown to the server becomes a user only when it uses an invite.
 */
export const invites = pgTable(
  'invites',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    storeId: integer('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    phone: text('phone').notNull(),
    role: text('role', { enum: ['owner', 'manager', 'staff'] }).notNull(),
    name: text('name'),
    showsMoney: boolean('shows_money').notNull().default(true),
    invitedBy: integer('invited_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [
    index('invites_phone').on(table.phone, table.expiresAt),
    index('invites_store').on(table.storeId),
    check('invites_role', sql`${table.role} in ('owner', 'manager', 'staff')`),
  ],
)

/**
 * Who invited, joined, changed or removed whom in a store's team, and when (docs/product.md §15), written
 * by the team's calls and the admin commands alike; kept a year (swept hourly). The names and the phone
 * are as they were at the time: a user removed later stays readable in the log.
 */
export const teamLog = pgTable(
  'team_log',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    storeId: integer('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** invited, inviteCancelled, joined, changed, removed. */
    action: text('action').notNull(),
    /** Who did it; null: an administrator's command (or the invitee's own sign-in, for `joined`). */
    actorId: integer('actor_id'),
    actorName: text('actor_name'),
    /** Whom it was about. */
    subjectId: integer('subject_id'),
    subjectName: text('subject_name'),
    subjectPhone: text('subject_phone').notNull(),
    /** The role and the money setting after it (null where it has none: a removal). */
    role: text('role'),
    showsMoney: boolean('shows_money'),
  },
  (table) => [index('team_log_store_at').on(table.storeId, table.at)],
)
