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
// temporary table inside the import's one transaction. Duplicate ids and the occurrence numbers of rows
// without an id are then worked out by the database (a map of every id or row seen would grow with the
// file), and the records are inserted from there in chunks. Memory stays bounded whatever the file's size.

import { createHash } from 'node:crypto'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { Parser } from 'csv-parse'
import { isValid, parseISO } from 'date-fns'
import { sql } from 'drizzle-orm'
import { type Db, queryRows } from './client.ts'

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

/** Rows sent to the database in one statement while reading. */
const batchRows = 5000
/** Records inserted into usages in one statement at the end. */
const insertChunkLines = 50_000

const maxAmount = 10_000_000

/** ISO 8601; a time without an offset is Korea time (UTC+9, no daylight saving), as a shop's POS writes it. */
function parseTimestamp(text: string): Date | null {
  const value = text.trim().replace(' ', 'T')
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?$/i.test(value)) return null
  const withOffset = /(Z|[+-]\d{2}:?\d{2})$/i.test(value) ? value : `${value}+09:00`
  const date = parseISO(withOffset)
  return isValid(date) ? date : null
}

function parseAmount(text: string): number | null {
  const value = text.trim().replace(/,/g, '').replace(/원$/, '')
  if (!/^\d+$/.test(value)) return null
  const amount = Number(value)
  return amount <= maxAmount ? amount : null
}

interface ParsedRecord {
  record: string[]
  /** The line the record ends on: the count csv-parse's `info: true` copies for each record. */
  line: number
}

/**
 * csv-parse handing on each record with its line number. Its own `info: true` builds an object of a
 * dozen fields for every record; at millions of rows that garbage alone grew the process's heap by
 * about 50 MB between collections. The line is read from the parser's running count as the record is
 * pushed, which is the value `info` would have copied.
 */
class LineParser extends Parser {
  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    if (chunk === null) return super.push(chunk, encoding)
    const parsed: ParsedRecord = { record: chunk as string[], line: this.info.lines }
    return super.push(parsed, encoding)
  }
}

type Rejected = ImportReport['rejected'][number]

/** Why a line was skipped as already present. */
export type SkipReason = 'id' | 'source' | 'legacy'

export const skipReasons: Record<SkipReason, string> = {
  id: '같은 id의 매출이 이미 있습니다',
  source: '같은 파일(같은 출처)에서 이미 가져온 매출입니다',
  legacy:
    '이전 버전이 출처 없이 가져온 같은 매출(같은 시각·금액의 같은 순번)이 있습니다; 다른 곳의 매출이면 id 열을 붙여 다시 가져오세요',
}

/** Consecutive lines skipped for the same reason. */
export interface SkippedLines {
  from: number
  to: number
  reason: SkipReason
}

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

/** A pass-through that hashes what goes through it: the file's content, for its default source. */
function contentHash() {
  const hash = createHash('sha256')
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk)
      done(null, chunk)
    },
  })
  // 96 bits: part of every key, so short; no two of an operator's files share them by chance.
  return { stream, digest: () => `sha256:${hash.digest('base64url').slice(0, 16)}` }
}

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
      await tx.execute(
        sql.raw(
          'create temp table import_rows (line integer not null, created_at timestamptz not null, ' +
            'amount integer not null, id text, key text) on commit drop',
        ),
      )
      const rejected: Rejected[] = []
      let rejectedCount = 0
      const reject = (line: number, reason: string) => {
        rejectedCount++
        if (rejected.length < maxReportedLines) rejected.push({ line, reason })
      }

      let batch = {
        lines: [] as number[],
        times: [] as string[],
        amounts: [] as number[],
        ids: [] as (string | null)[],
      }
      // Each column goes as one JSON text, unpacked side by side by the database (the same SQL on
      // PGlite and PostgreSQL). Arrays passed as parameters were serialized element by element by the
      // driver, and that garbage grew the heap by tens of MB between collections. A row without an id
      // gets its key (time|amount) from the same texts.
      const flush = async () => {
        if (batch.lines.length === 0) return
        const { lines, times, amounts, ids } = batch
        batch = { lines: [], times: [], amounts: [], ids: [] }
        await tx.execute(
          sql`insert into import_rows
              select l::integer, t::timestamptz, a::integer, i, case when i is null then t || '|' || a end
              from rows from (
                json_array_elements_text(${JSON.stringify(lines)}::json),
                json_array_elements_text(${JSON.stringify(times)}::json),
                json_array_elements_text(${JSON.stringify(amounts)}::json),
                json_array_elements_text(${JSON.stringify(ids)}::json)
              ) as r(l, t, a, i)`,
        )
      }

      const file = typeof input === 'string' ? Readable.from([Buffer.from(input)]) : input
      const parser = new LineParser({
        bom: true,
        relax_column_count: true,
        skip_empty_lines: true,
        trim: true,
      })
      const hashing = contentHash()
      const reading = source === undefined ? pipeline(file, hashing.stream, parser) : pipeline(file, parser)
      reading.catch(() => {}) // its error is the parser's, met below
      let rows = 0
      try {
        let columns: { createdAt: number; amount: number; id: number } | null = null
        for await (const { record, line } of parser as AsyncIterable<ParsedRecord>) {
          if (!columns) {
            const first = record.map((cell) => cell.toLowerCase())
            if (first.includes('createdat')) {
              columns = {
                createdAt: first.indexOf('createdat'),
                amount: first.indexOf('amount'),
                id: first.indexOf('id'),
              }
              continue
            }
            columns = { createdAt: 0, amount: 1, id: 2 }
          }
          const createdAtText = record[columns.createdAt] ?? ''
          const amountText = record[columns.amount] ?? ''
          const id = columns.id >= 0 ? (record[columns.id] ?? '') : ''
          const createdAt = parseTimestamp(createdAtText)
          const amount = parseAmount(amountText)
          if (!createdAt) {
            reject(line, `시각을 읽을 수 없습니다: "${createdAtText}" (예: 2026-03-01T09:15:00+09:00)`)
            continue
          }
          if (amount === null) {
            reject(
              line,
              `금액은 0부터 ${maxAmount.toLocaleString('ko-KR')}까지의 정수(원)여야 합니다: "${amountText}"`,
            )
            continue
          }
          if (id.length > 200) {
            reject(line, 'id가 너무 깁니다 (200자 이하)')
            continue
          }
          const time = createdAt.toISOString()
          batch.lines.push(line)
          batch.times.push(time)
          batch.amounts.push(amount)
          batch.ids.push(id || null)
          rows++
          if (batch.lines.length >= batchRows) await flush()
        }
        await reading
      } catch (error) {
        if (!('code' in (error as object)) || !String((error as { code: unknown }).code).startsWith('CSV_'))
          throw error
        reject((error as { lines?: number }).lines ?? 0, `CSV 형식 오류: ${(error as Error).message}`)
      }
      await flush()

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

      // Source ids: `id:<id>`, or for a row without one `src:<source>|` and its time and amount and which
      // occurrence of that pair it is in the file (so two identical sales stay two records). A store
      // holding records an earlier version imported without a source (`row:` keys) has each row's key
      // of that form looked for too (`legacy_id`), with or without --source: the till whose export has
      // grown since, imported now with the --source the docs ask for, must not count its old rows again.
      // Another place's sale equal to such a record is skipped and listed; given an id, it is imported.
      const prefix = `src:${source ?? hashing.digest()}|`
      const [legacy] = await queryRows<{ found: boolean }>(
        tx,
        sql`select exists (select 1 from usages where store_id = ${storeId} and source_id like 'row:%') as found`,
      )
      await tx.execute(
        sql.raw(
          'create temp table import_ready (line integer not null, created_at timestamptz not null, ' +
            'amount integer not null, source_id text not null, legacy_id text) on commit drop',
        ),
      )
      await tx.execute(
        sql`insert into import_ready
            select line, created_at, amount,
              case when id is not null then 'id:' || id else ${prefix} || key || '|' || n end,
              case when id is null and ${legacy?.found === true} then 'row:' || key || '|' || n end
            from (select *, row_number() over (partition by key order by line) as n from import_rows) r
            order by line`,
      )
      await tx.execute(sql.raw('create index on import_ready (line)'))
      const [last] = await queryRows<{ line: number | null }>(
        tx,
        sql`select max(line) as line from import_ready`,
      )
      let imported = 0
      let pending: SkippedLines | null = null
      const skip = (line: number, reason: SkipReason) => {
        if (pending && pending.reason === reason && pending.to === line - 1) pending.to = line
        else {
          if (pending) onSkipped?.(pending)
          pending = { from: line, to: line, reason }
        }
      }
      for (let from = 0; from <= (last?.line ?? -1); from += insertChunkLines) {
        // One statement a chunk: the rows whose key is new go in; the others come back, in file order,
        // with why (a CTE's insert is not seen by the rest of its statement, so `legacy` and the final
        // select see the table as it was).
        const rows = await queryRows<{ added: number; line: number | null; byId: boolean; legacy: boolean }>(
          tx,
          sql`with candidates as (
                select line, created_at, amount, source_id, legacy_id from import_ready
                where line >= ${from} and line < ${from + insertChunkLines}),
              legacy as (
                select c.line from candidates c
                where c.legacy_id is not null
                  and exists (select 1 from usages u where u.store_id = ${storeId} and u.source_id = c.legacy_id)),
              added as (
                insert into usages (store_id, created_at, amount, source_id)
                select ${storeId}, created_at, amount, source_id from candidates c
                where not exists (select 1 from legacy l where l.line = c.line)
                order by line
                on conflict (store_id, source_id) do nothing
                returning source_id)
              select n.added, s.line, s.by_id as "byId", s.legacy
              from (select count(*)::integer as added from added) n
              left join lateral (
                select c.line, c.source_id like 'id:%' as by_id,
                  exists (select 1 from legacy l where l.line = c.line) as legacy
                from candidates c
                where not exists (select 1 from added a where a.source_id = c.source_id)) s on true
              order by s.line`,
        )
        imported += rows[0]?.added ?? 0
        for (const row of rows) {
          if (row.line !== null) skip(row.line, row.byId ? 'id' : row.legacy ? 'legacy' : 'source')
        }
      }
      if (pending) onSkipped?.(pending)
      return { imported, skipped: rows - imported, rejected: [], rejectedCount: 0 }
    })
  } catch (error) {
    if (error instanceof Rejection) return error.report
    throw error
  }
}
