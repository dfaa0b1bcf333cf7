// Imports a generated CSV of N rows (default 300,000) into a new embedded database (or, with
// DATABASE_URL, a new PostgreSQL database) and prints one JSON line: rows, imported, seconds and the
// process's peak resident memory (VmHWM). Run as its own process so the peak is the import's; the file
// and the embedded database are made by another process first, and the database is opened as
// `npm run admin` opens it, so the figure is that command's (without the snapshot it writes after):
//   node --import tsx bench/import-memory.ts [rows]
// `tests/server/import-memory.test.ts` runs it with 300,000 rows; `npm run bench` with 3,000,000.

import { spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createPostgresDatabase } from '../scripts/postgres-database.ts'
import { addStore } from '../server/db/accounts.ts'
import { openDatabase, openForCommand } from '../server/db/client.ts'
import { importUsageCsv } from '../server/db/import.ts'

const rows = Number(process.argv[2] ?? 300_000)
const peakRssMb = () =>
  Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) / 1024

/** A year of one busy chain's records: every other row with an id, some identical rows without. */
async function writeCsv(file: string, rows: number) {
  const out = createWriteStream(file)
  out.write('createdAt,amount,id\n')
  const start = Date.UTC(2025, 0, 1)
  for (let n = 0; n < rows; n++) {
    const time = new Date(start + Math.floor((n * 365 * 86_400_000) / rows)).toISOString()
    const amount = 1000 + (n % 50) * 500
    const line = n % 2 === 0 ? `${time},${amount},pos-${n}\n` : `${time},${amount},\n`
    if (!out.write(line)) await once(out, 'drain')
  }
  out.end()
  await once(out, 'finish')
}

if (process.argv[2] === '--create') {
  const [, , , dir = '', count = ''] = process.argv
  await writeCsv(path.join(dir, 'sales.csv'), Number(count))
  if (process.argv[5] === 'pglite') {
    const created = await openDatabase({ pgliteDir: path.join(dir, 'pglite') })
    await created.close()
  }
  process.exit(0)
}

const dir = mkdtempSync(path.join(tmpdir(), 'laundry-import-'))
let dropPostgres = async () => {}
try {
  const file = path.join(dir, 'sales.csv')
  let target: Parameters<typeof openDatabase>[0] = { pgliteDir: path.join(dir, 'pglite') }
  if (process.env.DATABASE_URL) {
    const created = await createPostgresDatabase(process.env.DATABASE_URL, 'laundry_import')
    target = { databaseUrl: created.url }
    dropPostgres = created.drop
  }
  // The file, and a new embedded database, made by another process: a new PGlite database's initdb
  // peaks far above what opening one takes, and writing the file is no part of the import.
  const created = spawnSync(process.execPath, [
    '--import',
    'tsx',
    fileURLToPath(import.meta.url),
    '--create',
    dir,
    String(rows),
    'pgliteDir' in target ? 'pglite' : 'postgres',
  ])
  if (created.status !== 0) throw new Error(`creating the file and database failed: ${created.stderr}`)
  const database = await openForCommand(target)
  try {
    const storeId = await addStore(database.db, { name: '대량점' })
    const rssBeforeMb = process.memoryUsage().rss / 1024 / 1024
    const started = performance.now()
    const report = await importUsageCsv(database.db, storeId, createReadStream(file))
    const seconds = (performance.now() - started) / 1000
    console.log(
      JSON.stringify({
        database: database.kind,
        rows,
        imported: report.imported,
        rejectedCount: report.rejectedCount,
        seconds: Number(seconds.toFixed(1)),
        rssBeforeMb: Math.round(rssBeforeMb),
        peakRssMb: Math.round(peakRssMb()),
      }),
    )
  } finally {
    await database.close()
  }
} finally {
  await dropPostgres()
  rmSync(dir, { recursive: true, force: true })
}
