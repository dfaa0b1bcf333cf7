// npm run admin -- <command>: manage users, stores, memberships and usage records of this server's
// database (the one DATA_DIR or DATABASE_URL names). Run without a command for help.
import { copyFileSync, createReadStream, mkdirSync } from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { type Config, ConfigError, readConfig } from './config.ts'
import {
  addStore,
  addUser,
  grant,
  listAccounts,
  listStores,
  pictureName,
  type Role,
  removeUser,
  renameGuessablePictures,
  revoke,
  setStoreImages,
  setUserImage,
  signOutEverywhere,
  storeExists,
} from './db/accounts.ts'
import { type Db, databaseTarget, openForCommand } from './db/client.ts'
import { embeddedFolderName } from './db/data-names.ts'
import { DatabaseDamagedError } from './db/embedded.ts'
import { importUsageCsv, maxReportedLines, maxSourceLength, skipReasons } from './db/import.ts'
import { DatabaseInUseError } from './db/lock.ts'
import { restoreSnapshot } from './db/snapshot-restore.ts'
import { writeSnapshot } from './db/snapshots.ts'
import { listDevices, revokeAllDevices, revokeDevice } from './devices/registry.ts'
import { secureDataDir } from './files.ts'
import { failureLine, lastMessageFailures } from './messages/failures.ts'

export const usage = `Usage: npm run admin -- <command>

  list                                        users (with their stores) and stores
  add-user <phone> <name> [--image <file>]    register a user who may sign in
  add-store <name> [--image <file>]...        add a store; the first image is its thumbnail
  grant <phone> <storeId> [--role owner|manager|staff]
                                              let a user see a store (default role: staff)
  revoke <phone> <storeId>                    take that away (both in the store's team log)
  sign-out <phone>                            end every sign-in of a user (running servers refuse
                                              their tokens within 5 seconds) and their known devices
  remove-user <phone>                         delete a user, their store access, sign-ins and known devices
  import <storeId> <file.csv> [--source <name>]
                                              import usage records: createdAt,amount[,id]
                                              (all or nothing; importing a file again adds nothing;
                                              --source names where rows without an id come from,
                                              e.g. a till whose export grows: rows are matched only
                                              against its earlier imports; by default the file's
                                              content is its source)
  devices <storeId>                           a store's devices: paired, last seen, revoked
  revoke-device <storeId> <deviceId|all>      revoke one device of the store, or all of them, for good
                                              (its key is refused at once; its sales are kept)
  messages [--limit <n>]                      the last messages the SMS/알림톡 provider refused or that
                                              failed (default 20, newest first): why, its code, to whom (masked)
  restore <snapshot file>                     put a snapshot back as the embedded database
                                              (server stopped; the replaced one is kept aside)`

export interface AdminContext {
  db: Db
  imageDir: string
  print(line: string): void
}

class UsageError extends Error {}

/** Copies an uploaded picture into IMAGE_DIR under an unguessable name (`pictureName`); returns that name. */
function copyImage(imageDir: string, file: string, folder: 'users' | 'stores'): string {
  const relative = pictureName(folder, file)
  mkdirSync(path.dirname(path.join(imageDir, relative)), { recursive: true })
  copyFileSync(file, path.join(imageDir, relative))
  return relative
}

const storeIdArg = (value: string | undefined) => {
  const id = Number(value)
  if (!Number.isInteger(id) || id < 1) throw new UsageError(`not a store id: ${value ?? '(missing)'}`)
  return id
}

/** Runs one command; returns the process exit code. */
export async function runAdmin(argv: string[], { db, imageDir, print }: AdminContext): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      image: { type: 'string', multiple: true },
      role: { type: 'string' },
      source: { type: 'string' },
      limit: { type: 'string' },
    },
  })
  const [command, ...args] = positionals
  switch (command) {
    case 'list': {
      for (const user of await listAccounts(db)) {
        print(`user ${user.id}  ${user.phone}  ${user.name}  stores: ${user.stores || '-'}`)
      }
      for (const store of await listStores(db)) {
        print(`store ${store.id}  ${store.name}  images: ${store.images.join(', ') || '-'}`)
      }
      return 0
    }
    case 'add-user': {
      const [phone, name] = args
      if (!phone || !name) throw new UsageError('add-user needs <phone> <name>')
      const id = await addUser(db, { phone, name })
      const image = values.image?.[0]
      if (image) await setUserImage(db, id, copyImage(imageDir, image, 'users'))
      print(`user ${id} added`)
      return 0
    }
    case 'add-store': {
      const name = args.join(' ')
      if (!name) throw new UsageError('add-store needs <name>')
      const id = await addStore(db, { name })
      const images = (values.image ?? []).map((file) => copyImage(imageDir, file, 'stores'))
      if (images.length > 0) await setStoreImages(db, id, images)
      print(`store ${id} added`)
      return 0
    }
    case 'grant': {
      const [phone, store] = args
      const role = (values.role ?? 'staff') as Role
      if (!phone) throw new UsageError('grant needs <phone> <storeId>')
      if (role !== 'owner' && role !== 'manager' && role !== 'staff')
        throw new UsageError('--role is owner, manager or staff')
      await grant(db, phone, storeIdArg(store), role)
      print(`${phone} may now see store ${store} (${role})`)
      return 0
    }
    case 'revoke': {
      const [phone, store] = args
      if (!phone) throw new UsageError('revoke needs <phone> <storeId>')
      const removed = await revoke(db, phone, storeIdArg(store))
      print(
        removed
          ? `${phone} may no longer see store ${store}`
          : `${phone} could not see store ${store}; nothing changed`,
      )
      return 0
    }
    case 'sign-out': {
      const [phone] = args
      if (!phone) throw new UsageError('sign-out needs <phone>')
      print(`${phone}: ended ${await signOutEverywhere(db, phone)} sign-in(s)`)
      return 0
    }
    case 'remove-user': {
      const [phone] = args
      if (!phone) throw new UsageError('remove-user needs <phone>')
      await removeUser(db, phone)
      print(`${phone} removed`)
      return 0
    }
    case 'import': {
      const [store, file] = args
      const storeId = storeIdArg(store)
      if (!file) throw new UsageError('import needs <storeId> <file.csv>')
      if (!(await storeExists(db, storeId))) throw new UsageError(`no store ${storeId}`)
      const { source } = values
      if (source !== undefined && (source === '' || source.length > maxSourceLength || source.includes('|')))
        throw new UsageError(`--source needs a name of 1 to ${maxSourceLength} characters, without |`)
      const report = await importUsageCsv(db, storeId, createReadStream(file), {
        source,
        onSkipped: ({ from, to, reason }) =>
          print(`${from === to ? `line ${from}` : `lines ${from}-${to}`}: skipped: ${skipReasons[reason]}`),
      })
      for (const { line, reason } of report.rejected) print(`line ${line}: ${reason}`)
      if (report.rejectedCount > report.rejected.length) {
        print(`... (only the first ${maxReportedLines} bad lines are listed)`)
      }
      if (report.rejectedCount > 0) {
        print(`rejected ${report.rejectedCount} row(s); nothing was imported. Fix the file and run again.`)
        return 1
      }
      print(`imported ${report.imported}, skipped ${report.skipped} (already present), rejected 0`)
      return 0
    }
    case 'devices': {
      const storeId = storeIdArg(args[0])
      if (!(await storeExists(db, storeId))) throw new UsageError(`no store ${storeId}`)
      for (const device of await listDevices(db, storeId)) {
        print(
          [
            `device ${device.id}`,
            device.name,
            device.pairedAt ? `paired ${device.pairedAt}` : 'not paired',
            `last seen ${device.lastSeenAt ?? '-'}`,
            device.revokedAt ? `revoked ${device.revokedAt}` : 'active',
          ].join('  '),
        )
      }
      return 0
    }
    case 'revoke-device': {
      const [store, which] = args
      if (!store || !which) throw new UsageError('revoke-device needs <storeId> <deviceId|all>')
      const storeId = storeIdArg(store)
      if (which === 'all') {
        const ids = await revokeAllDevices(db, storeId, new Date())
        print(
          `store ${storeId}: ${ids.length} device(s) revoked${ids.length > 0 ? ` (${ids.map((id) => `device ${id}`).join(', ')})` : ''}`,
        )
        return 0
      }
      const deviceId = Number(which)
      if (!Number.isInteger(deviceId) || deviceId < 1) throw new UsageError(`not a device id: ${which}`)
      if (!(await revokeDevice(db, storeId, deviceId, new Date())))
        throw new UsageError(`store ${storeId} has no device ${deviceId}`)
      print(`store ${storeId}: device ${deviceId} revoked`)
      return 0
    }
    case 'messages': {
      const limit = Number(values.limit ?? 20)
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit is 1 to 1000')
      const rows = await lastMessageFailures(db, limit)
      if (rows.length === 0) print('no message failures')
      for (const row of rows) print(failureLine(row))
      return 0
    }
    default:
      throw new UsageError(command ? `unknown command: ${command}` : 'no command')
  }
}

/** Commands that only read; every other one is followed by a snapshot of the embedded database. */
const readOnly = new Set(['list', 'messages', undefined])

async function main() {
  const config = readConfig()
  secureDataDir(config)
  const argv = process.argv.slice(2)
  if (argv[0] === 'restore') return restore(config, argv[1])
  // Memory before speed (see openForCommand): an import of 3,000,000 rows peaks near 265 MB, and the
  // snapshot written after it streams the database's files, adding a few tens of MB (docs/operations.md).
  const database = await openForCommand(databaseTarget(config))
  try {
    const renamed = await renameGuessablePictures(database.db, config.imageDir)
    if (renamed > 0) console.log(`gave ${renamed} uploaded picture(s) unguessable names`)
    const code = await runAdmin(argv, { db: database.db, imageDir: config.imageDir, print: console.log })
    if (code === 0 && database.pglite && !readOnly.has(argv[0])) {
      const snapshot = await writeSnapshot(database.pglite, config.snapshots)
      console.log(`snapshot written: ${snapshot.file}`)
    }
    return code
  } finally {
    await database.close()
  }
}

/** `restore <file>`: the embedded database only, with the server stopped (the lock says so). */
async function restore(config: Config, file: string | undefined) {
  if (config.databaseUrl) {
    throw new UsageError(
      'restore is for the embedded database; PostgreSQL is restored with its own tools (pg_restore)',
    )
  }
  if (!file) throw new UsageError('restore needs <snapshot file>')
  const pgliteDir = path.join(config.dataDir, embeddedFolderName)
  const { keptAside } = await restoreSnapshot(path.resolve(file), pgliteDir)
  console.log(`restored ${path.resolve(file)} into ${pgliteDir}`)
  if (keptAside) console.log(`the database it replaced is kept in ${keptAside}; delete it once all is well`)
  return 0
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      if (error instanceof UsageError) console.error(`${error.message}\n\n${usage}`)
      else if (
        error instanceof ConfigError ||
        error instanceof DatabaseInUseError ||
        error instanceof DatabaseDamagedError
      )
        console.error(error.message)
      else console.error(`admin: ${(error as Error).message}`)
      process.exit(error instanceof UsageError ? 2 : 1)
    },
  )
}
