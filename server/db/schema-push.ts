// Part of the schema, in a file of its own for schema.ts's size (drizzle.config.ts lists it for drizzle-kit).
import { sql } from 'drizzle-orm'
import { check, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core'

/**
 * The keys this server signs its pushes with (VAPID, docs/product.md decision 89), when the environment
 * names none: generated once by the first instance to start, in the database, so that every instance on
 * one PostgreSQL signs alike, and a snapshot carries the keys together with the subscriptions made for
 * them (a browser's subscription is bound to the public key it was made with). One row, id 1.
 */
export const pushKeys = pgTable(
  'push_keys',
  {
    id: integer('id').primaryKey(),
    /** The uncompressed P-256 public key, base64url (65 bytes). */
    publicKey: text('public_key').notNull(),
    /** The private key, base64url (32 bytes). */
    privateKey: text('private_key').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [check('push_keys_one_row', sql`${table.id} = 1`)],
)
