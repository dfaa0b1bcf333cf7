import { describe, expect, it } from 'vitest'
import { runBenchScript } from '../bench-child.ts'

// A snapshot streams the database's files and a restore streams them back: neither may hold the
// database in memory. PGlite's own dump did (a snapshot of 200,000 rows added about 420 MB to the
// process and its restore about 730 MB; 3,000,000 rows took the command to about 5 GB).
// bench/snapshot-memory.ts imports 200,000 generated rows into an embedded database, snapshots it in a
// process opened as `npm run admin` opens it, and restores it in another, reporting each process's
// resident memory before and at its peak, and the rows with a checksum before and after.
describe('snapshots of a large embedded database', () => {
  it('of 200,000 rows are written and restored in bounded memory, and restore the same rows', async () => {
    const rows = 200_000
    type Step = { checksum: string; peakMb: number; rssBeforeMb: number; rows: number }
    const result = await runBenchScript<{
      folderMb: number
      walMb: number
      imported: number
      snapshot: Step & { snapshotMb: number; totalMs: number }
      restore: Step & { restoreMs: number }
    }>('bench/snapshot-memory.ts', [String(rows)], { DATABASE_URL: '' })
    const { snapshot, restore } = result
    console.log(
      `${rows} rows: folder ${result.folderMb} MB (write-ahead log ${result.walMb} MB); snapshot ` +
        `${snapshot.snapshotMb} MB in ${snapshot.totalMs} ms, process ${snapshot.rssBeforeMb} MB before, ` +
        `${snapshot.peakMb} MB at the peak; restore in ${restore.restoreMs} ms, process ${restore.rssBeforeMb} MB ` +
        `before, ${restore.peakMb} MB at the peak`,
    )
    expect(result.imported).toBe(rows)
    expect(restore.rows).toBe(rows)
    expect(restore.checksum).toBe(snapshot.checksum)
    // About 35 MB measured (tar reads one file at a time, 1 MiB at a time; gzip's buffers).
    expect(snapshot.peakMb - snapshot.rssBeforeMb).toBeLessThan(100)
    // About 155 MB measured, most of it the restored database opened to be migrated and checked (the
    // process before it is Node alone); the unpacking itself adds about 40 MB.
    expect(restore.peakMb - restore.rssBeforeMb).toBeLessThan(250)
    // The write-ahead log left after the snapshot's CHECKPOINT: 4 files of 16 MB (max_wal_size 64 MB).
    // With PGlite's 1 GB it was 96 MB at this size, and 1,074 MB after 3,000,000 rows.
    expect(result.walMb).toBeLessThanOrEqual(80)
  }, 120_000)
})
