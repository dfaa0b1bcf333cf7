// Part of the schema, in a file of its own for schema.ts's size (drizzle.config.ts lists it for drizzle-kit).
import { sql } from 'drizzle-orm'
import { integer, pgTable, primaryKey, timestamp, uniqueIndex } from 'drizzle-orm/pg-core'
import { stores } from './schema.ts'

/**
 * A store's devices unheard (docs/product.md §12, decision 180): from the first of them offline (unheard
 * for 3 heartbeats) until every one is heard again. The alert rules open and end the rows, whichever
 * instance first sees it (a store has one open outage at most: the partial unique index); an outage's
 * push, its return and the store's flapping are read from them.
 */
export const deviceOutages = pgTable(
  'device_outages',
  {
    storeId: integer('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    /** When it began: the last heartbeat of the first device unheard. */
    since: timestamp('since', { withTimezone: true, precision: 3, mode: 'date' }).notNull(),
    /** The devices unheard in it, each added as it dropped. */
    deviceIds: integer('device_ids').array().notNull(),
    /** When the rules first found every device heard again; null while it lasts. */
    endedAt: timestamp('ended_at', { withTimezone: true, precision: 3, mode: 'date' }),
  },
  (table) => [
    primaryKey({ columns: [table.storeId, table.since] }),
    uniqueIndex('device_outages_open').on(table.storeId).where(sql`${table.endedAt} is null`),
  ],
)
