// Users, stores and who may see which store: what `npm run admin` changes, and what tests set up.
import { randomBytes } from 'node:crypto'
import { linkSync, unlinkSync } from 'node:fs'
import path from 'node:path'
import { and, asc, eq, isNull, sql } from 'drizzle-orm'
import { normalizePhone } from '../sign-in/phone.ts'
import { putMember, removeMember } from '../team/members.ts'
import { type Db, queryRows } from './client.ts'
import { knownDeviceEpochs, memberships, signIns, stores, users } from './schema.ts'

export type { Role } from '../../contract/team.ts'

import type { Role } from '../../contract/team.ts'

export async function addUser(db: Db, user: { phone: string; name: string; image?: string | null }) {
  const phone = normalizePhone(user.phone)
  const [existing] = await db.select({ id: users.id }).from(users).where(eq(users.phone, phone))
  if (existing) throw new Error(`${phone} is already registered (user ${existing.id})`)
  const [created] = await db
    .insert(users)
    .values({ phone, name: user.name, image: user.image ?? null })
    .returning({ id: users.id })
  if (!created) throw new Error('user not created')
  return created.id
}

/**
 * The path, relative to IMAGE_DIR, an uploaded picture (`--image` of add-user and add-store) is copied
 * to: 128 random bits, so that nobody can walk other users' or stores' pictures by counting, for
 * /images/ needs no sign-in (an <img> sends no bearer token). The file's extension is kept, for its type.
 */
export const pictureName = (folder: 'users' | 'stores', file: string) =>
  `${folder}/${randomBytes(16).toString('base64url')}${path.extname(file).toLowerCase()}`

/** Names earlier versions gave uploaded pictures: users/<user id>.ext and stores/<store id>-<n>.ext. */
const guessablePicture = /^(?:users\/\d+|stores\/\d+-\d+)(?:\.[^/]*)?$/

/**
 * Gives every uploaded picture that still has a guessable name (see `guessablePicture`) a name of
 * `pictureName`'s kind, in IMAGE_DIR and in the database; run at every start of the server and the
 * admin commands, it finds nothing once done. Returns how many it renamed. For each: a second name is
 * linked to the file, the row is changed only if it still names the old one (another instance on the
 * same PostgreSQL may be doing the same; the loser drops its link), then the old name goes. A picture
 * whose file is missing is left as it is. A crash between the row and the unlink leaves the old name
 * as an unused copy.
 */
export async function renameGuessablePictures(db: Db, imageDir: string): Promise<number> {
  const rename = async (old: string, change: (next: string) => Promise<boolean>) => {
    const folder = old.startsWith('users/') ? 'users' : 'stores'
    const next = pictureName(folder, old)
    try {
      linkSync(path.join(imageDir, old), path.join(imageDir, next))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0
      throw error
    }
    if (!(await change(next))) {
      unlinkSync(path.join(imageDir, next))
      return 0
    }
    unlinkSync(path.join(imageDir, old))
    return 1
  }
  let renamed = 0
  const userRows = await queryRows<{ id: number; image: string }>(
    db,
    sql`select id, image from users where image ~ ${guessablePicture.source} order by id`,
  )
  for (const { id, image } of userRows) {
    renamed += await rename(image, async (next) => {
      const changed = await db
        .update(users)
        .set({ image: next })
        .where(and(eq(users.id, id), eq(users.image, image)))
        .returning({ id: users.id })
      return changed.length > 0
    })
  }
  const storeRows = await queryRows<{ id: number; images: string[] }>(
    db,
    sql`select id, images from stores where exists (select from unnest(images) as i where i ~ ${guessablePicture.source}) order by id`,
  )
  for (const { id, images } of storeRows) {
    for (const image of images.filter((name) => guessablePicture.test(name))) {
      renamed += await rename(image, async (next) => {
        const changed = await queryRows<{ id: number }>(
          db,
          sql`update stores set images = array_replace(images, ${image}, ${next})
              where id = ${id} and ${image} = any(images) returning id`,
        )
        return changed.length > 0
      })
    }
  }
  return renamed
}

export async function setUserImage(db: Db, userId: number, image: string) {
  await db.update(users).set({ image }).where(eq(users.id, userId))
}

export async function addStore(db: Db, store: { name: string; images?: string[] }) {
  const [created] = await db
    .insert(stores)
    .values({ name: store.name, images: store.images ?? [] })
    .returning({ id: stores.id })
  if (!created) throw new Error('store not created')
  return created.id
}

export async function setStoreImages(db: Db, storeId: number, images: string[]) {
  await db.update(stores).set({ images }).where(eq(stores.id, storeId))
}

async function userIdOf(db: Db, phone: string) {
  const [user] = await db
    .select({ id: users.id })
    .from(users)
    .where(eq(users.phone, normalizePhone(phone)))
  if (!user) throw new Error(`no user with phone ${phone}`)
  return user.id
}

export async function storeExists(db: Db, storeId: number) {
  const [store] = await db.select({ id: stores.id }).from(stores).where(eq(stores.id, storeId))
  return Boolean(store)
}

/**
 * Gives the user the store with the role (the admin command `grant`): a member keeps their money setting
 * and their name; written to the team's log as the operator's (docs/product.md §15).
 */
export async function grant(db: Db, phone: string, storeId: number, role: Role = 'staff', at = new Date()) {
  const userId = await userIdOf(db, phone)
  if (!(await storeExists(db, storeId))) throw new Error(`no store ${storeId}`)
  await db.transaction(async (tx) => {
    const [kept] = await tx
      .select({ showsMoney: memberships.showsMoney })
      .from(memberships)
      .where(and(eq(memberships.userId, userId), eq(memberships.storeId, storeId)))
    const showsMoney = kept?.showsMoney ?? true
    await putMember(tx, { storeId, userId, role, showsMoney, name: null, invitedAt: null }, null, at)
  })
}

/** Takes the store from the user (the admin command `revoke`), as the team's removal does, logged as the operator's. */
export async function revoke(db: Db, phone: string, storeId: number, at = new Date()) {
  const userId = await userIdOf(db, phone)
  const outcome = await db.transaction((tx) => removeMember(tx, storeId, userId, null, at))
  return outcome === 'removed'
}

export async function listAccounts(db: Db) {
  return db
    .select({
      id: users.id,
      phone: users.phone,
      name: users.name,
      stores: sql<string>`coalesce(string_agg(${memberships.storeId} || ':' || ${memberships.role}, ', ' order by ${memberships.storeId}), '')`,
    })
    .from(users)
    .leftJoin(memberships, eq(memberships.userId, users.id))
    .groupBy(users.id)
    .orderBy(asc(users.id))
}

export function listStores(db: Db) {
  return db
    .select({ id: stores.id, name: stores.name, images: stores.images })
    .from(stores)
    .orderBy(asc(stores.id))
}

/**
 * Makes every known-device credential of the number worthless (known-device.ts): its generation goes up,
 * and a browser is a known device of it again only after its next sign-in. `db` may be a transaction.
 */
export async function endKnownDevices(db: Db, phone: string) {
  await db
    .insert(knownDeviceEpochs)
    .values({ phone: normalizePhone(phone), epoch: 1 })
    .onConflictDoUpdate({
      target: knownDeviceEpochs.phone,
      set: { epoch: sql`${knownDeviceEpochs.epoch} + 1` },
    })
}

/** The generation of the number's known-device credentials (0 until one is ended). */
export async function knownDeviceEpoch(db: Db, phone: string) {
  const [row] = await db
    .select({ epoch: knownDeviceEpochs.epoch })
    .from(knownDeviceEpochs)
    .where(eq(knownDeviceEpochs.phone, phone))
  return row?.epoch ?? 0
}

/**
 * Ends every sign-in of a user: refresh tokens at once, access tokens on each running server within
 * its sign-in check interval (signInCheckMs), and every known-device credential of the number (the
 * browsers that signed in to it are strangers to it until they sign in again). Returns how many
 * sign-ins were live.
 */
export async function signOutEverywhere(db: Db, phone: string, at = new Date()) {
  const userId = await userIdOf(db, phone)
  return db.transaction(async (tx) => {
    const ended = await tx
      .update(signIns)
      .set({ revokedAt: at })
      .where(and(eq(signIns.userId, userId), isNull(signIns.revokedAt)))
      .returning({ id: signIns.id })
    await endKnownDevices(tx, phone)
    return ended.length
  })
}

/**
 * Deletes a user with their memberships and sign-ins (which ends their tokens as sign-out does), and
 * ends the number's known-device credentials, so that a number registered again later (numbers are
 * given to new subscribers) is not known to the former user's browsers.
 */
export async function removeUser(db: Db, phone: string) {
  const userId = await userIdOf(db, phone)
  await db.transaction(async (tx) => {
    await tx.delete(users).where(eq(users.id, userId))
    await endKnownDevices(tx, phone)
  })
}
