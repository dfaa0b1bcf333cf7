// Reads a usage CSV into the import's temporary table `import_rows`, streaming: rows are parsed as they
// are read and go in batches into the table, so memory stays bounded whatever the file's size. Each bad
// line is handed to the caller with why; the good ones are staged with their line, time, amount and id.
// The rest of an import (all or nothing, source ids, what is already present) is import.ts's.

import { createHash } from 'node:crypto'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { Parser } from 'csv-parse'
import { isValid, parseISO } from 'date-fns'
import { sql } from 'drizzle-orm'
import type { Db } from './client.ts'

/** Rows sent to the database in one statement while reading. */
const batchRows = 5000

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

/** Where a record's cells are: from the header line, else createdAt, amount, id in that order. */
type Columns = { createdAt: number; amount: number; id: number }

/** A record's cells checked: the staged row, or why the line is bad. */
function checkRecord(
  record: string[],
  columns: Columns,
): { reason: string } | { time: string; amount: number; id: string } {
  const createdAtText = record[columns.createdAt] ?? ''
  const amountText = record[columns.amount] ?? ''
  const id = columns.id >= 0 ? (record[columns.id] ?? '') : ''
  const createdAt = parseTimestamp(createdAtText)
  const amount = parseAmount(amountText)
  if (!createdAt)
    return { reason: `시각을 읽을 수 없습니다: "${createdAtText}" (예: 2026-03-01T09:15:00+09:00)` }
  if (amount === null)
    return {
      reason: `금액은 0부터 ${maxAmount.toLocaleString('ko-KR')}까지의 정수(원)여야 합니다: "${amountText}"`,
    }
  if (id.length > 200) return { reason: 'id가 너무 깁니다 (200자 이하)' }
  return { time: createdAt.toISOString(), amount, id }
}

/**
 * Creates `import_rows` (dropped at commit) and fills it from the CSV `input`, handing every bad line
 * to `reject`. Returns how many rows were staged and, when `hashContent`, the digest of the file's
 * content (read once the file is read).
 */
export async function stageCsv(
  tx: Db,
  input: string | Readable,
  { hashContent, reject }: { hashContent: boolean; reject: (line: number, reason: string) => void },
): Promise<{ rows: number; digest: () => string }> {
  await tx.execute(
    sql.raw(
      'create temp table import_rows (line integer not null, created_at timestamptz not null, ' +
        'amount integer not null, id text, key text) on commit drop',
    ),
  )
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
  const reading = hashContent ? pipeline(file, hashing.stream, parser) : pipeline(file, parser)
  reading.catch(() => {}) // its error is the parser's, met below
  let rows = 0
  try {
    let columns: Columns | null = null
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
      const checked = checkRecord(record, columns)
      if ('reason' in checked) {
        reject(line, checked.reason)
        continue
      }
      batch.lines.push(line)
      batch.times.push(checked.time)
      batch.amounts.push(checked.amount)
      batch.ids.push(checked.id || null)
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
  return { rows, digest: hashing.digest }
}
