// Imports a store's usage records from CSV: createdAt, amount and optionally id, with or without a
// header line. All or nothing: a file with any bad row changes nothing, and the report names every bad
// line. Idempotent: each record gets a source id (its `id`, or its time, amount and occurrence in the
// file), so importing the same file again adds nothing.

import { parse } from 'csv-parse/sync'
import { isValid, parseISO } from 'date-fns'
import type { Db } from './client.ts'
import { usages } from './schema.ts'

export interface ImportReport {
  imported: number
  skipped: number
  rejected: { line: number; reason: string }[]
}

interface Row {
  createdAt: Date
  amount: number
  sourceId: string
}

export const maxAmount = 10_000_000

/** ISO 8601; a time without an offset is Korea time (UTC+9, no daylight saving), as a shop's POS writes it. */
export function parseTimestamp(text: string): Date | null {
  const value = text.trim().replace(' ', 'T')
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?$/i.test(value)) return null
  const withOffset = /(Z|[+-]\d{2}:?\d{2})$/i.test(value) ? value : `${value}+09:00`
  const date = parseISO(withOffset)
  return isValid(date) ? date : null
}

export function parseAmount(text: string): number | null {
  const value = text.trim().replace(/,/g, '').replace(/원$/, '')
  if (!/^\d+$/.test(value)) return null
  const amount = Number(value)
  return amount <= maxAmount ? amount : null
}

function readRows(csv: string): { rows: Row[]; rejected: ImportReport['rejected'] } {
  const records = parse(csv, {
    bom: true,
    info: true,
    relax_column_count: true,
    skip_empty_lines: true,
    trim: true,
  }) as unknown as { record: string[]; info: { lines: number } }[]

  let columns = { createdAt: 0, amount: 1, id: 2 }
  const first = records[0]?.record.map((cell) => cell.toLowerCase())
  if (first?.includes('createdat')) {
    columns = {
      createdAt: first.indexOf('createdat'),
      amount: first.indexOf('amount'),
      id: first.indexOf('id'),
    }
    records.shift()
  }

  const rows: Row[] = []
  const rejected: ImportReport['rejected'] = []
  const idLines = new Map<string, number>()
  const occurrences = new Map<string, number>()
  for (const { record, info } of records) {
    const line = info.lines
    const createdAtText = record[columns.createdAt] ?? ''
    const amountText = record[columns.amount] ?? ''
    const id = columns.id >= 0 ? (record[columns.id] ?? '') : ''
    const createdAt = parseTimestamp(createdAtText)
    const amount = parseAmount(amountText)
    if (!createdAt) {
      rejected.push({
        line,
        reason: `시각을 읽을 수 없습니다: "${createdAtText}" (예: 2026-03-01T09:15:00+09:00)`,
      })
      continue
    }
    if (amount === null) {
      rejected.push({
        line,
        reason: `금액은 0부터 ${maxAmount.toLocaleString('ko-KR')}까지의 정수(원)여야 합니다: "${amountText}"`,
      })
      continue
    }
    if (id.length > 200) {
      rejected.push({ line, reason: 'id가 너무 깁니다 (200자 이하)' })
      continue
    }
    let sourceId: string
    if (id) {
      const seenAt = idLines.get(id)
      if (seenAt !== undefined) {
        rejected.push({ line, reason: `id "${id}"가 ${seenAt}번째 줄에도 있습니다` })
        continue
      }
      idLines.set(id, line)
      sourceId = `id:${id}`
    } else {
      const key = `${createdAt.toISOString()}|${amount}`
      const n = (occurrences.get(key) ?? 0) + 1
      occurrences.set(key, n)
      sourceId = `row:${key}|${n}`
    }
    rows.push({ createdAt, amount, sourceId })
  }
  return { rows, rejected }
}

export async function importUsageCsv(db: Db, storeId: number, csv: string): Promise<ImportReport> {
  let parsed: ReturnType<typeof readRows>
  try {
    parsed = readRows(csv)
  } catch (error) {
    const line = (error as { lines?: number }).lines ?? 0
    return {
      imported: 0,
      skipped: 0,
      rejected: [{ line, reason: `CSV 형식 오류: ${(error as Error).message}` }],
    }
  }
  const { rows, rejected } = parsed
  if (rejected.length > 0) return { imported: 0, skipped: 0, rejected }

  const imported = await db.transaction(async (tx) => {
    let inserted = 0
    for (let start = 0; start < rows.length; start += 1000) {
      const batch = rows.slice(start, start + 1000).map((row) => ({ storeId, ...row }))
      const added = await tx
        .insert(usages)
        .values(batch)
        .onConflictDoNothing({ target: [usages.storeId, usages.sourceId] })
        .returning({ id: usages.id })
      inserted += added.length
    }
    return inserted
  })
  return { imported, skipped: rows.length - imported, rejected: [] }
}
