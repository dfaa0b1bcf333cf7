// How long the server takes to build a busy year's usage answer when it is not in its cache: after a
// start, and again after every new record of the current year. Both forms, in-process, on the embedded
// database (a fresh one with the demo data) or, with DATABASE_URL, on PostgreSQL (a database created and
// dropped here). Three builds each: the first one reads the rows from disk, the later ones from memory.
// Prints one JSON line; `npm run bench` runs it for both databases.
//
//   node --import tsx bench/usage-build.ts            (PGlite)
//   DATABASE_URL=postgres://… node --import tsx bench/usage-build.ts
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { brotliCompress, constants, gzip } from 'node:zlib'
import { createPostgresDatabase } from '../scripts/postgres-database.ts'
import { openDatabase } from '../server/db/client.ts'
import { seedDemoIfEmpty } from '../server/db/seed.ts'
import { usageCompact, usageJson } from '../server/usage.ts'

const brotli = promisify(brotliCompress)
const gzipAsync = promisify(gzip)
/** The server's settings (server/usage.ts): gzip level 6, brotli quality 5. */
const compress = (body: Uint8Array) =>
  Promise.all([
    gzipAsync(body, { level: 6 }),
    brotli(body, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
    }),
  ])

const dir = mkdtempSync(path.join(tmpdir(), 'laundry-usage-build-'))
const adminUrl = process.env.DATABASE_URL
const created = adminUrl ? await createPostgresDatabase(adminUrl, 'laundry_bench') : undefined
const databaseUrl = created?.url
try {
  const database = await openDatabase(databaseUrl ? { databaseUrl } : { pgliteDir: path.join(dir, 'pglite') })
  try {
    await seedDemoIfEmpty(database.db, path.join(dir, 'images'), new Date())
    const year = new Date().getUTCFullYear() - 1
    const runs = { json: [] as number[], compact: [] as number[] }
    for (let run = 0; run < 3; run++) {
      let started = performance.now()
      await compress(Buffer.from(await usageJson(database.db, 1, year)))
      runs.json.push(performance.now() - started)
      started = performance.now()
      await compress(await usageCompact(database.db, 1, year))
      runs.compact.push(performance.now() - started)
    }
    const round = (values: number[]) => values.map((ms) => Math.round(ms))
    console.log(
      JSON.stringify({
        database: databaseUrl ? 'postgres' : 'pglite',
        jsonMs: round(runs.json),
        compactMs: round(runs.compact),
      }),
    )
  } finally {
    await database.close()
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
  await created?.drop()
}
