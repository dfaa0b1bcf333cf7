// How long the server takes to build a busy year's usage answer when it is not in its cache: after a
// start, and again after every new record of the current year. It calls the server's own
// `buildUsageAnswer` (server/usage/answer.ts: query, encoding, hash, the first compression), both forms,
// in-process, on the embedded database (a fresh one with the demo data) or, with DATABASE_URL, on
// PostgreSQL (a database created and dropped here). Three builds each: the first one reads the rows from
// disk, the later ones from memory. Then the background step the cache takes for the forms it
// recompresses (`recompressBest`): its time and the bytes a record before and after.
// Prints one JSON line; `npm run bench` runs it for both databases.
//
//   node --import tsx bench/usage-build.ts            (PGlite)
//   DATABASE_URL=postgres://… node --import tsx bench/usage-build.ts
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import { createPostgresDatabase } from '../scripts/postgres-database.ts'
import { openDatabase, queryRows } from '../server/db/client.ts'
import { seedDemoIfEmpty } from '../server/db/seed.ts'
import {
  buildUsageAnswer,
  type EncodedUsage,
  recompressBest,
  recompressed,
  type UsageForm,
} from '../server/usage/answer.ts'

const dir = mkdtempSync(path.join(tmpdir(), 'laundry-usage-build-'))
const adminUrl = process.env.DATABASE_URL
const created = adminUrl ? await createPostgresDatabase(adminUrl, 'laundry_bench') : undefined
const databaseUrl = created?.url
try {
  const database = await openDatabase(databaseUrl ? { databaseUrl } : { pgliteDir: path.join(dir, 'pglite') })
  try {
    await seedDemoIfEmpty(database.db, path.join(dir, 'images'), new Date())
    const storeId = 1
    const year = new Date().getUTCFullYear() - 1
    const [row] = await queryRows<{ records: string | number }>(
      database.db,
      sql`select count(*) as records from usages where store_id = ${storeId}
            and created_at >= ${new Date(Date.UTC(year, 0, 1)).toISOString()}
            and created_at < ${new Date(Date.UTC(year + 1, 0, 1)).toISOString()}`,
    )
    const records = Number(row?.records)
    const perRecord = (bytes: number) => Math.round((bytes / records) * 100) / 100
    const bytes = (answer: EncodedUsage) => ({
      brotli: perRecord(answer.brotli.length),
      gzip: perRecord(answer.gzip.length),
    })
    const forms: UsageForm[] = ['json', 'compact', 'compact2']
    const runs: Record<UsageForm, number[]> = { json: [], compact: [], compact2: [] }
    const built: Partial<Record<UsageForm, EncodedUsage>> = {}
    for (let run = 0; run < 3; run++) {
      for (const form of forms) {
        const started = performance.now()
        built[form] = await buildUsageAnswer(database.db, storeId, year, run, form)
        runs[form].push(Math.round(performance.now() - started))
      }
    }
    const bytesPerRecord: Partial<Record<UsageForm, ReturnType<typeof bytes>>> = {}
    const recompression: Partial<
      Record<UsageForm, { ms: number; bytesPerRecord: ReturnType<typeof bytes> }>
    > = {}
    for (const form of forms) {
      const answer = built[form]
      if (!answer) continue
      bytesPerRecord[form] = bytes(answer)
      if (!recompressed(form)) continue
      const started = performance.now()
      const smaller = await recompressBest(answer, () => true)
      if (!smaller) throw new Error('the recompression stopped')
      recompression[form] = { ms: Math.round(performance.now() - started), bytesPerRecord: bytes(smaller) }
    }
    const result = {
      database: databaseUrl ? 'postgres' : 'pglite',
      records,
      jsonMs: runs.json,
      compactMs: runs.compact,
      compact2Ms: runs.compact2,
      bytesPerRecord,
      recompression,
    }
    console.log(JSON.stringify(result))
  } finally {
    await database.close()
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
  await created?.drop()
}
