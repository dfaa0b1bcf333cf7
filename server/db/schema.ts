// Long by nature: the schema of every table, in one file because drizzle-kit generates the migrations
// from it.
// The tables. Migrations in ./migrations are generated from this file by `npm run db:generate`
// and run unchanged on PGlite and PostgreSQL.
import { sql } from 'drizzle-orm'
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core'

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow()

export const users = pgTable('users', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  phone: text('phone').notNull().unique(),
  name: text('name').notNull(),
  /** Path relative to IMAGE_DIR, or null for no picture. */
  image: text('image'),
  createdAt: createdAt(),
})

export const stores = pgTable('stores', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  name: text('name').notNull(),
  /** Paths relative to IMAGE_DIR; the first one is the thumbnail. */
  images: text('images').array().notNull().default(sql`'{}'::text[]`),
  createdAt: createdAt(),
})

export const memberships = pgTable(
  'memberships',
  {
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    storeId: integer('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ['owner', 'staff'] }).notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    primaryKey({ columns: [table.userId, table.storeId] }),
    index('memberships_store').on(table.storeId),
  ],
)

export const usages = pgTable(
  'usages',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    storeId: integer('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3, mode: 'date' }).notNull(),
    amount: integer('amount').notNull(),
    /** The record's id at its source (CSV `id` column, or derived from the row), for idempotent imports. */
    sourceId: text('source_id'),
    /** The device that posted the sale (server/devices/), or null for a CSV import, the seed or SQL. */
    deviceId: integer('device_id').references(() => devices.id, { onDelete: 'cascade' }),
    /** The device's own id of the sale: one record per (device, id), whatever the batches. */
    deviceSaleId: text('device_sale_id'),
  },
  (table) => [
    index('usages_store_created').on(table.storeId, table.createdAt),
    unique('usages_store_source').on(table.storeId, table.sourceId),
    uniqueIndex('usages_device_sale')
      .on(table.deviceId, table.deviceSaleId)
      .where(sql`${table.deviceId} is not null`),
    // A device's sale has its own key and no source id; an imported record is the other way round.
    check(
      'usages_one_key',
      sql`(${table.deviceId} is null and ${table.deviceSaleId} is null) or (${table.deviceId} is not null and ${table.deviceSaleId} is not null and ${table.sourceId} is null)`,
    ),
    // A negative amount is a refund (docs/product.md §3): a device may post one.
    check('usages_amount_range', sql`${table.amount} between -10000000 and 10000000`),
  ],
)

/**
 * A store's devices (docs/product.md §11): a box beside the coin changer, a kiosk, a card terminal's
 * integration, which posts the store's sales as they happen. Added by the owner (with a pairing code),
 * paired by the device (which gets its key: only its SHA-256 is kept), revoked by the owner. The
 * rate-limit window of its key lives on the row, so every instance counts alike.
 */
export const devices = pgTable(
  'devices',
  {
    /** Random (new_device_id(), migration 0009): a device's id says nothing of how many other stores added. */
    id: integer('id').primaryKey().default(sql`new_device_id()`),
    storeId: integer('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** SHA-256 (base64url) of the device's key; null until paired. */
    keyHash: text('key_hash').unique(),
    createdAt: createdAt(),
    pairedAt: timestamp('paired_at', { withTimezone: true, mode: 'date' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true, mode: 'date' }),
    /** The newest `createdAt` among the sales it delivered. */
    lastSaleAt: timestamp('last_sale_at', { withTimezone: true, precision: 3, mode: 'date' }),
    /** Sales waiting in its queue, as its last heartbeat said. */
    pending: integer('pending'),
    /** Its clock minus the server's (ms), from its last `sentAt`. */
    skewMs: bigint('skew_ms', { mode: 'number' }),
    /** The start of its key's current rate-limit window, and the requests counted in it. */
    rateWindowAt: timestamp('rate_window_at', { withTimezone: true, mode: 'date' }),
    rateCount: integer('rate_count').notNull().default(0),
  },
  (table) => [index('devices_store').on(table.storeId)],
)

/** A device's pairing code, stored hashed: single use, bound to its device (and so to its store), 10 minutes. */
export const devicePairings = pgTable(
  'device_pairings',
  {
    codeHash: text('code_hash').primaryKey(),
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [index('device_pairings_device').on(table.deviceId)],
)

/**
 * The answered batches of each device, by its Idempotency-Key: the hash of the sales sent and the
 * answer given, replayed to a retry. A batch still running holds a transaction-scoped advisory lock of
 * its key instead of a row (server/devices/batches.ts), so a crash can never leave one stuck. Kept 24
 * hours at least, then swept.
 */
export const deviceBatches = pgTable(
  'device_batches',
  {
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    bodyHash: text('body_hash').notNull(),
    /** The answer as sent (JSON). */
    answer: text('answer').notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    primaryKey({ columns: [table.deviceId, table.key] }),
    index('device_batches_created').on(table.createdAt),
  ],
)

/**
 * The live sign-in code of a phone for each client that asked for one (otp.ts). A browser's code is bound
 * to the browser: clientKey `device:<id>`, the random id of its `knownDevice` cookie, which the code
 * request sets when the browser has none; a newer request from that browser replaces its code only, and
 * only that browser may use it, so another browser at the same address can neither replace nor end it.
 * A client that keeps no cookies signs in with the latest code asked for from its address without a
 * cookie (`cookieless`, `address`: an IPv4 address or an IPv6 /64).
 */
export const loginCodes = pgTable(
  'login_codes',
  {
    phone: text('phone').notNull(),
    codeHash: text('code_hash').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    tries: integer('tries').notNull().default(0),
    clientKey: text('client_key').notNull().default(''),
    /** The address that asked for it. */
    address: text('address').notNull().default(''),
    /** Asked for without a browser id: a client that keeps no cookies may use it from `address`. */
    cookieless: boolean('cookieless').notNull().default(false),
  },
  (table) => [
    primaryKey({ columns: [table.phone, table.clientKey] }),
    index('login_codes_cookieless').on(table.phone, table.address, table.expiresAt),
  ],
)

/**
 * Consecutive failed sign-ins of a phone from one client, across codes, and the lock they caused: a lock
 * keeps that client, not the phone's owner elsewhere, from that phone. The client (clientKey) is the
 * address of a device unknown to the phone, or `device:<id>` for a known device of it (otp.ts), whose
 * failures and locks strangers without its credential can never add to. A row is swept a day after its
 * last failure and its lock have both passed (`lastFailureAt`, `lockedUntil`).
 */
export const phoneLocks = pgTable(
  'phone_locks',
  {
    phone: text('phone').notNull(),
    clientKey: text('client_key').notNull().default(''),
    failures: integer('failures').notNull().default(0),
    locks: integer('locks').notNull().default(0),
    lockedUntil: timestamp('locked_until', { withTimezone: true, mode: 'date' }),
    lastFailureAt: timestamp('last_failure_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.phone, table.clientKey] })],
)

/**
 * The generation of a number's known-device credentials (known-device.ts), mixed into their MAC: bumping
 * it makes every credential made before worthless. An administrator's `sign-out` and `remove-user`, and
 * a sign-in ended by reuse of a spent refresh token, bump it. Kept by number, not by user, so that it
 * outlives `remove-user`: a number registered again is not known to the browsers of its former user.
 * No row is generation 0.
 */
export const knownDeviceEpochs = pgTable('known_device_epochs', {
  phone: text('phone').primaryKey(),
  epoch: integer('epoch').notNull().default(0),
})

/** One row per rate-limited event (a code request, by phone and by client address). */
export const rateEvents = pgTable(
  'rate_events',
  {
    key: text('key').notNull(),
    at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [index('rate_events_key_at').on(table.key, table.at)],
)

/**
 * Sign-ins (token families): one per successful sign-in, with its absolute expiry. Revoking the row ends
 * every refresh token of the sign-in and, on the next check, every access token issued under it.
 */
export const signIns = pgTable(
  'sign_ins',
  {
    id: text('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
  },
  (table) => [index('sign_ins_user').on(table.userId)],
)

/**
 * Refresh tokens, stored hashed, each of one sign-in (family). Each use rotates the token within its
 * sign-in, and presenting a rotated one again revokes the sign-in, unless it is the client's retry of a
 * rotation whose answer it never got: same attempt key (its hash kept in `retry_key_hash` when the
 * token was rotated with one), within REFRESH_RETRY_SECONDS, successor not yet used (tokens.ts).
 */
export const refreshTokens = pgTable(
  'refresh_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    familyId: text('family_id')
      .notNull()
      .references(() => signIns.id, { onDelete: 'cascade' }),
    rotatedAt: timestamp('rotated_at', { withTimezone: true, mode: 'date' }),
    /** SHA-256 of the attempt key the token was rotated with; null when rotated without one, or not yet. */
    retryKeyHash: text('retry_key_hash'),
    createdAt: createdAt(),
  },
  (table) => [index('refresh_tokens_family').on(table.familyId)],
)

/**
 * A version (revision) for each (store, UTC year), raised by one by the usages trigger (migration 0009)
 * under the year's row lock whenever usage records of that year are inserted, changed or deleted, by any
 * writer: it counts that store-year's own write statements only. A new row starts at the database's
 * epoch (usage_epoch) times 10^8, plus one; the epoch only grows (a deletion of rows here whose store
 * remains, or a restore, advances it), so a year's versions only ever grow. It tells a server's in-memory copy of the year's
 * answer when it is stale, and is the `Usage-Revision` of the answer.
 */
export const usageYears = pgTable(
  'usage_years',
  {
    storeId: integer('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    year: integer('year').notNull(),
    /** A new row's starts at its epoch's base (usage_epoch_base(), migration 0012), never at 0. */
    version: bigint('version', { mode: 'number' }).notNull().default(sql`usage_epoch_base()`),
    /** The year's record count and amount sum, kept by the same trigger (migration 0007): the changes call's checksum. */
    recordCount: bigint('record_count', { mode: 'number' }).notNull().default(0),
    amountSum: bigint('amount_sum', { mode: 'number' }).notNull().default(0),
    /**
     * Every change with a revision above this one is in usage_changes; a client whose `after` is below it
     * is told to reset. Raised by the pruning of old changes (server/usage/changes.ts), set to the
     * version a year had when the log began (migration 0007). A new row's is its epoch's base
     * (migration 0012), so whoever keeps a revision of an earlier epoch (a server's view, a client) for
     * a year made again after a restore is told to reset, not handed changes on top of what it kept.
     */
    logFrom: bigint('log_from', { mode: 'number' }).notNull().default(sql`usage_epoch_base()`),
  },
  (table) => [primaryKey({ columns: [table.storeId, table.year] })],
)

/**
 * The database's revision epoch (one row, id 1; migration 0009): minutes since 2026-01-01 UTC at its
 * last advance, or one more than before when that is higher. Advanced when rows of usage_years are
 * deleted while their store remains or truncated, and by `usage_restart_revisions()` after a restore, which moves every year's
 * version to the new epoch: no version handed out before can come again.
 */
export const usageEpoch = pgTable(
  'usage_epoch',
  {
    id: integer('id').primaryKey(),
    epoch: bigint('epoch', { mode: 'number' }).notNull(),
  },
  (table) => [check('usage_epoch_one', sql`${table.id} = 1`)],
)

/**
 * The change log of usages (docs/product.md §8, decisions 77–82), written by the usages triggers
 * (migration 0007) for every writer: per statement and store-year one revision (usage_years.version);
 * an insert is a `put`, a delete a `del`, an update a `del` of the old row and a `put` of the new one.
 * A statement that changes more than 1,000 records of a store-year logs one `reset` instead. Changes
 * are kept 3 days (pruned hourly); no foreign key, so a store's deletion never waits on its log.
 */
export const usageChanges = pgTable(
  'usage_changes',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    storeId: integer('store_id').notNull(),
    year: integer('year').notNull(),
    rev: bigint('rev', { mode: 'number' }).notNull(),
    op: text('op', { enum: ['put', 'del', 'reset'] }).notNull(),
    /** The record's; null for a `reset`. */
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3, mode: 'date' }),
    amount: integer('amount'),
    loggedAt: timestamp('logged_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    index('usage_changes_year_rev').on(table.storeId, table.year, table.rev),
    index('usage_changes_logged').on(table.loggedAt),
    check('usage_changes_op', sql`${table.op} in ('put', 'del', 'reset')`),
  ],
)

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
    createdAt: createdAt(),
  },
  (table) => [check('push_keys_one_row', sql`${table.id} = 1`)],
)

/**
 * The browsers' push subscriptions (server/push/), each of one sign-in: ending the sign-in (logout, a
 * refresh token's reuse, an administrator's sign-out, a restore) deletes it, through the trigger of
 * migration 0007, whoever ends it; so does deleting the sign-in or the user (cascade). One row per
 * endpoint: a browser that subscribes again under another sign-in moves its row to that sign-in.
 */
export const pushSubscriptions = pgTable(
  'push_subscriptions',
  {
    endpoint: text('endpoint').primaryKey(),
    signInId: text('sign_in_id')
      .notNull()
      .references(() => signIns.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The browser's P-256 key (base64url, 65 bytes) and auth secret (base64url, 16 bytes). */
    p256dh: text('p256dh').notNull(),
    auth: text('auth').notNull(),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** Nothing is sent to it before this instant: the push service asked us to wait (429, 5xx). */
    retryAt: timestamp('retry_at', { withTimezone: true, mode: 'date' }),
    /** Refusals in a row (429, 5xx, no answer), for the backoff when the service names no Retry-After. */
    failures: integer('failures').notNull().default(0),
  },
  (table) => [
    index('push_subscriptions_user').on(table.userId),
    index('push_subscriptions_sign_in').on(table.signInId),
  ],
)

/**
 * What each user chose for each store's alerts (docs/product.md decision 92); no row is the defaults.
 * Quiet hours are minutes of the day in Korea time; a window may cross midnight (start > end).
 */
export const alertSettings = pgTable(
  'alert_settings',
  {
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    storeId: integer('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    quiet: boolean('quiet').notNull().default(true),
    deviceOffline: boolean('device_offline').notNull().default(true),
    morningSummary: boolean('morning_summary').notNull().default(true),
    /** Quiet hours, minutes after midnight in Korea time (default 23:00–07:00); both null: none. */
    quietStart: integer('quiet_start').default(23 * 60),
    quietEnd: integer('quiet_end').default(7 * 60),
    snoozedUntil: timestamp('snoozed_until', { withTimezone: true, mode: 'date' }),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.userId, table.storeId] }),
    check(
      'alert_settings_quiet_hours',
      sql`(${table.quietStart} is null and ${table.quietEnd} is null) or (${table.quietStart} between 0 and 1439 and ${table.quietEnd} between 0 and 1439 and ${table.quietStart} <> ${table.quietEnd})`,
    ),
  ],
)

/**
 * The alerts, sent or held (docs/product.md decision 93). The key (user, store, kind, episode) is unique,
 * nulls not distinct (the morning summary has no store): an alert is recorded by an insert that does
 * nothing when the row exists, so of several instances that compute the same alert exactly one records
 * it, and only that one sends it.
 */
export const alerts = pgTable(
  'alerts',
  {
    /** Random (new_alert_id(), migration 0009): an alert's id says nothing of other users' alerts. */
    id: bigint('id', { mode: 'number' }).primaryKey().default(sql`new_alert_id()`),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Null for what covers all the user's stores (the morning summary). */
    storeId: integer('store_id').references(() => stores.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['quiet', 'deviceOffline', 'morningSummary'] }).notNull(),
    /** What makes it one alert: the quiet episode's start, the outage's start, the summary's day. */
    episode: text('episode').notNull(),
    /**
     * The stores what covers several names (the morning summary): it is listed and released only while
     * the user still sees every one of them. Null for an alert of one store (store_id), and for a
     * summary recorded before this column.
     */
    storeIds: integer('store_ids').array(),
    title: text('title').notNull(),
    body: text('body').notNull(),
    /** The notification's tag: a later alert of the same tag replaces it on the device. */
    tag: text('tag').notNull(),
    /** `held` during quiet hours (in the list only), `sent` once due to be pushed. */
    state: text('state', { enum: ['held', 'sent'] }).notNull(),
    createdAt: createdAt(),
    sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date' }),
    /**
     * The outbox: set when the alert is recorded `sent` (or a held one released), cleared by the one
     * instance whose update takes it to push (server/alerts/outbox.ts). False for every row before it.
     */
    pushPending: boolean('push_pending').notNull().default(false),
  },
  (table) => [
    unique('alerts_once').on(table.userId, table.storeId, table.kind, table.episode).nullsNotDistinct(),
    index('alerts_user_created').on(table.userId, table.createdAt),
    index('alerts_push_pending').on(table.id).where(sql`${table.pushPending}`),
  ],
)

/**
 * The database's generation (one row): a random token that changes whenever the database may have lost
 * acknowledged writes: a snapshot restored, an embedded database started after its holder did not end
 * cleanly (a power cut, an OS crash, a kill), or, on PostgreSQL, set by hand after a restore from a backup.
 * The devices are told it with every answer; one that sees it change sends again what it was
 * acknowledged recently (server/db/generation.ts, device/queue.ts).
 */
export const databaseGeneration = pgTable(
  'database_generation',
  {
    id: integer('id').primaryKey().default(1),
    generation: text('generation').notNull(),
    /** Why it last changed: `created`, `restore`, `unclean start`, or what an operator wrote. */
    reason: text('reason').notNull(),
    changedAt: timestamp('changed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [check('database_generation_one_row', sql`${table.id} = 1`)],
)
