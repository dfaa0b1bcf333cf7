// Takes snapshots of the embedded database holding the demo data (as `npm start` seeds it) and prints
// one JSON line: the snapshot's size, how long the database answered nothing (the CHECKPOINT and the copy),
// the longest stall of the event loop, the longest wait of a query sent meanwhile, and until the file
// was on disk. Median of three. `npm run bench` runs it.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { sql } from 'drizzle-orm'
import { openDatabase, queryRows } from '../server/db/client.ts'
import { seedDemoIfEmpty } from '../server/db/seed.ts'
import { writeSnapshot } from '../server/db/snapshots.ts'

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0
const dir = mkdtempSync(path.join(tmpdir(), 'laundry-snapshot-'))
try {
  const database = await openDatabase({ pgliteDir: path.join(dir, 'pglite') })
  try {
    await seedDemoIfEmpty(database.db, path.join(dir, 'images'), new Date())
    const [{ records } = { records: 0 }] = await queryRows<{ records: number }>(
      database.db,
      sql`select count(*)::integer as records from usages`,
    )
    const runs: {
      bytes: number
      blockedMs: number
      totalMs: number
      loopStallMs: number
      queryWaitMs: number
    }[] = []
    for (let run = 0; run < 3; run++) {
      const loop = monitorEventLoopDelay({ resolution: 10 })
      loop.enable()
      let queryWaitMs = 0
      let writing = true
      const queries = (async () => {
        while (writing) {
          const sent = performance.now()
          await queryRows(database.db, sql`select count(*) from stores`)
          queryWaitMs = Math.max(queryWaitMs, performance.now() - sent)
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
      })()
      const result = await writeSnapshot(database.pglite as NonNullable<typeof database.pglite>, {
        dir: path.join(dir, 'snapshots'),
        kept: 1,
      })
      writing = false
      await queries
      loop.disable()
      runs.push({
        bytes: result.bytes,
        blockedMs: result.blockedMs,
        totalMs: result.totalMs,
        loopStallMs: loop.max / 1e6,
        queryWaitMs,
      })
    }
    console.log(
      JSON.stringify({
        records,
        snapshotMb: Number((median(runs.map((r) => r.bytes)) / 1e6).toFixed(1)),
        blockedMs: Math.round(median(runs.map((r) => r.blockedMs))),
        loopStallMs: Math.round(median(runs.map((r) => r.loopStallMs))),
        queryWaitMs: Math.round(median(runs.map((r) => r.queryWaitMs))),
        totalMs: Math.round(median(runs.map((r) => r.totalMs))),
      }),
    )
  } finally {
    await database.close()
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
