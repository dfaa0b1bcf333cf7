// The e2e-only account of tests/e2e/quiet-store.spec.ts: an owner of two unattended stores that sell
// around the clock, one a sale every minute (helpers.ts, `quietOwner`). Its stores follow no day/night
// profile, so whether one of them is quiet does not depend on the time of day the tests run:
// - the first store added ('normal') has records from 9 weeks ago up to 6 hours after this setup (its
//   clock runs ahead, as a terminal's may), so whenever in the run the spec looks, its last sale is not
//   behind it (with records only up to the setup, 3 minutes later it would rightly be quiet);
// - the second ('quiet') has the same records up to 2 hours before this setup, and none after.
// Created with the real admin commands (server/admin.ts) on the data directory, after the demo seed
// (which only runs on a database without users) and before the server starts.
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { runAdmin } from '../../server/admin.ts'
import { openDatabase } from '../../server/db/client.ts'
import { seedDemoIfEmpty } from '../../server/db/seed.ts'
import { quietOwner, quietOwnerName, quietStoreNames } from './helpers.ts'

const minuteMs = 60_000
const dayMs = 24 * 60 * minuteMs
/** History before today (UTC): the quiet rule averages the previous 8 weeks and wants the first of them whole. */
const historyDays = 9 * 7
/** Prices of a cycle, in won: the amount of the n-th minute is prices[n % prices.length]. */
const prices = [3000, 4000, 3500, 5000, 6000, 4500, 7000]

/** A sale at second 30 of every minute in [from, to), as `createdAt,amount` CSV. */
function everyMinute(from: number, to: number) {
  const lines = ['createdAt,amount']
  for (let at = from, n = 0; at < to; at += minuteMs, n++) {
    lines.push(`${new Date(at + 30_000).toISOString()},${prices[n % prices.length]}`)
  }
  return `${lines.join('\n')}\n`
}

/**
 * Seeds the demo data (as the server would on this empty database) and adds the quiet-store account
 * with its two stores. `now` is the setup's time: the 'quiet' store's last sale is 2 hours before it.
 */
export async function addQuietStoreAccount(dataDir: string, now: Date) {
  const database = await openDatabase({ pgliteDir: path.join(dataDir, 'pglite'), sharedBuffers: '16MB' })
  const output: string[] = []
  const admin = async (...args: string[]) => {
    const code = await runAdmin(args, {
      db: database.db,
      imageDir: path.join(dataDir, 'images'),
      print: (line) => output.push(line),
    })
    if (code !== 0) throw new Error(`admin ${args.join(' ')} failed:\n${output.join('\n')}`)
    return output.at(-1) ?? ''
  }
  try {
    await seedDemoIfEmpty(database.db, path.join(dataDir, 'images'), now)
    const today = Math.floor(now.getTime() / dayMs) * dayMs
    const from = today - historyDays * dayMs
    const files = {
      normal: { name: quietStoreNames.normal, csv: everyMinute(from, now.getTime() + 6 * 60 * minuteMs) },
      quiet: { name: quietStoreNames.quiet, csv: everyMinute(from, now.getTime() - 2 * 60 * minuteMs) },
    }
    await admin('add-user', quietOwner, quietOwnerName)
    // The normal store first: the overview must put the quiet one first all the same.
    for (const { name, csv } of [files.normal, files.quiet]) {
      const id = (await admin('add-store', name)).match(/^store (\d+) added$/)?.[1]
      if (!id) throw new Error(`add-store ${name}: ${output.join('\n')}`)
      await admin('grant', quietOwner, id, '--role', 'owner')
      const file = path.join(dataDir, `store-${id}.csv`)
      writeFileSync(file, csv)
      await admin('import', id, file)
    }
  } finally {
    await database.close()
  }
}
