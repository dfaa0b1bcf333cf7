// Part of the schema, in a file of its own for schema.ts's size (drizzle.config.ts lists it for drizzle-kit).
import { bigint, index, integer, pgTable, timestamp } from 'drizzle-orm/pg-core'
import { devices, stores } from './schema.ts'

/**
 * Payments a device said were declined or failed (a heartbeat's `failedPayments`, when above zero):
 * one row a heartbeat, for the alerts on the card reader (docs/product.md §14).
 */
export const paymentFailures = pgTable(
  'payment_failures',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    storeId: integer('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull(),
    count: integer('count').notNull(),
  },
  (table) => [
    index('payment_failures_store_at').on(table.storeId, table.at),
    // The alerts read the last minutes' failures of every store at once.
    index('payment_failures_at').on(table.at),
  ],
)
