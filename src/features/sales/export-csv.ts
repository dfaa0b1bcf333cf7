// The shown period as a CSV file the owner can open in Excel: the month's days, or the year's months,
// with amount and number of sales, from the same buckets as the screen (so it works offline too).
// Loaded only when the owner asks for a file.
import { hasCome } from '../../figures/series.ts'
import type { Period } from './period.ts'

/** What the export reads of the buckets. */
export interface ExportSource {
  year: number
  days: number[][]
  dayCounts: number[][]
  months: number[]
  monthCounts: number[]
}

/** Excel reads a file as UTF-8 (and so shows Korean) only when it starts with a byte order mark. */
const byteOrderMark = '\uFEFF'
const pad = (value: number) => String(value).padStart(2, '0')

/**
 * The CSV text of one month (`period.month`) or, with `wholeYear`, of the year by month. Days and months
 * that have not yet come (after `today`, UTC: the charts' rule, figures/series.ts) are left out: the
 * file holds what happened. Amounts are plain whole numbers (no separators), so a spreadsheet reads
 * them as numbers.
 */
export function periodCsv(source: ExportSource, period: Period, wholeYear: boolean, today: Date): string {
  const rows: string[] = []
  if (wholeYear) {
    rows.push('월,매출(원),결제 건수')
    source.months.forEach((sum, index) => {
      if (hasCome(source.year, index + 1, 1, today))
        rows.push(`${source.year}-${pad(index + 1)},${sum},${source.monthCounts[index] ?? 0}`)
    })
  } else {
    rows.push('날짜,매출(원),결제 건수')
    const sums = source.days[period.month - 1] ?? []
    const counts = source.dayCounts[period.month - 1] ?? []
    sums.forEach((sum, index) => {
      if (hasCome(source.year, period.month, index + 1, today))
        rows.push(`${source.year}-${pad(period.month)}-${pad(index + 1)},${sum},${counts[index] ?? 0}`)
    })
  }
  return `${byteOrderMark}${rows.join('\r\n')}\r\n`
}

/** `행복빨래방_2026-11.csv` or `행복빨래방_2026.csv`; characters no file system allows become `_`. */
export function csvFileName(storeName: string, period: Period, wholeYear: boolean): string {
  const store = storeName.replace(/[\\/:*?"<>|\p{Cc}]/gu, '_').replace(/\s+/g, '_')
  return `${store}_${wholeYear ? period.year : `${period.year}-${pad(period.month)}`}.csv`
}

/** Hands the file (its text, or a file fetched from the server) to the browser's download. */
export function downloadCsv(fileName: string, contents: string | Blob) {
  const url = URL.createObjectURL(new Blob([contents], { type: 'text/csv;charset=utf-8' }))
  const link = document.createElement('a')
  link.href = url
  link.download = fileName
  document.body.append(link)
  link.click()
  link.remove()
  // Revoked after the click has been handled.
  setTimeout(() => URL.revokeObjectURL(url), 0)
}
