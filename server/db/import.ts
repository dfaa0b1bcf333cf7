// Imports a store's usage records from CSV: createdAt, amount and optionally id, with or without a
// header line. All or nothing: a file with any bad row changes nothing, and the report names the bad
// lines (the first `maxReportedLines` of them, with the count of all). Idempotent: each record gets a
// source id (its `id`, or its source, time, amount and occurrence in the file), so importing the same
// file again adds nothing, and every line skipped as already present is reported (`onSkipped`). The
// source of rows without an id is the name the importer gives (`--source`: a till, a machine, whose
// export may grow between imports) or else the file's content (a hash): a washer's file and a dryer's
// file that both hold `2015-03-01 09:15,4000` are two sales, never one. Records an earlier version
// imported without a source keep their keys (`row:` + time, amount, occurrence), and every import still
// matches them, so a file imported before the upgrade adds nothing again, with or without `--source`;
// the lines it skips for them say so (docs/product.md §8, decision 44).
//
// The file is streamed, never held whole: rows are parsed as they are read and go, in batches, into a
// temporary table inside the import's one transaction (import-csv.ts). Duplicate ids and the occurrence
// numbers of rows without an id are then worked out by the database (a map of every id or row seen would
// grow with the file), and the records are inserted from there in chunks (import-insert.ts). Memory
// stays bounded whatever the file's size.

import type { Readable } from 'node:stream'
import { sql } from 'drizzle-orm'
import { type Db, queryRows } from './client.ts'
import { stageCsv } from './import-csv.ts'
import { insertStaged, type SkippedLines } from './import-insert.ts'

export { type SkippedLines, type SkipReason, skipReasons } from './import-insert.ts'

export interface ImportReport {
  imported: number
  skipped: number
  /** Bad lines in file order, at most `maxReportedLines` of them. */
  rejected: { line: number; reason: string }[]
  /** How many lines were bad in all. */
  rejectedCount: number
}

/** A report names at most this many bad lines (a wrong file can have millions); it counts them all. */
export const maxReportedLines = 1000

type Rejected = ImportReport['rejected'][number]

export interface ImportOptions {
  /**
   * Where the file's rows without an id come from (a till, a machine): rows are matched only against
   * earlier imports of the same source. Without it, the file's content is its source.
   */
  source?: string
  /** Told every run of skipped lines, in file order, as the import finds them (never held all at once). */
  onSkipped?: (skipped: SkippedLines) => void
}

/** The longest `--source` name; it is part of every key of the file's rows without an id. */
export const maxSourceLength = 40

/** Thrown inside the transaction to undo it when any line was bad. */
class Rejection extends Error {
  constructor(readonly report: ImportReport) {
    super('rejected')
  }
}

export async function importUsageCsv(
  db: Db,
  storeId: number,
  input: string | Readable,
  { source, onSkipped }: ImportOptions = {},
): Promise<ImportReport> {
  if (
    source !== undefined &&
    (source.length === 0 || source.length > maxSourceLength || source.includes('|'))
  )
    throw new Error(`a source is 1 to ${maxSourceLength} characters, without |`)
  try {
    return await db.transaction(async (tx) => {
      // The one index built here is on a temporary table; PostgreSQL's default 64 MB for building it
      // would stay in the embedded database's memory for good.
      await tx.execute(sql.raw("set local maintenance_work_mem = '8MB'"))
      const rejected: Rejected[] = []
      let rejectedCount = 0
      const reject = (line: number, reason: string) => {
        rejectedCount++
        if (rejected.length < maxReportedLines) rejected.push({ line, reason })
      }
      const { rows, digest } = await stageCsv(tx, input, { hashContent: source === undefined, reject })

      // An id met on an earlier line: every later line with it is bad.
      const duplicates = await queryRows<{ line: number; id: string; first: number; total: number }>(
        tx,
        sql`select line, id, first, count(*) over ()::integer as total
            from (select line, id, min(line) over (partition by id) as first from import_rows where id is not null) d
            where line > first order by line limit ${maxReportedLines}`,
      )
      if (duplicates.length > 0 || rejectedCount > 0) {
        const all = [
          ...rejected,
          ...duplicates.map((d) => ({
            line: d.line,
            reason: `id "${d.id}"가 ${d.first}번째 줄에도 있습니다`,
          })),
        ].sort((a, b) => a.line - b.line)
        throw new Rejection({
          imported: 0,
          skipped: 0,
          rejected: all.slice(0, maxReportedLines),
          rejectedCount: rejectedCount + (duplicates[0]?.total ?? 0),
        })
      }

      const imported = await insertStaged(tx, storeId, `src:${source ?? digest()}|`, onSkipped)
      return { imported, skipped: rows - imported, rejected: [], rejectedCount: 0 }
    })
  } catch (error) {
    if (error instanceof Rejection) return error.report
    throw error
  }
}
