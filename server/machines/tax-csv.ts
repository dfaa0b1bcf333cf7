// The tax export's file (docs/product.md §14, decision 173): what Excel opens as it is in Korea. UTF-8
// with a byte order mark (without it Excel reads the Korean header as the ANSI code page), CRLF lines,
// a first row naming the columns (the days are Korea-time days: the file's name says KST), one row a
// day, then a 합계 row. Amounts are plain integers in won, no separators, so Excel reads numbers.
import { methodNames, paymentMethods } from '../../domain/machines.ts'
import type { TaxDay } from './tax-days.ts'

export const taxColumns = [
  '날짜',
  ...paymentMethods.map((method) => methodNames[method]),
  '환불',
  '순매출',
  '건수',
]

const bom = '\ufeff'

/** A cell as CSV writes it: quoted only when it holds a comma, a quote or a line break. */
const cell = (value: string | number) => {
  const text = String(value)
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

const line = (values: (string | number)[]) => `${values.map(cell).join(',')}\r\n`

export function taxCsv(days: TaxDay[]): Buffer {
  const total = (pick: (day: TaxDay) => number) => days.reduce((sum, day) => sum + pick(day), 0)
  const row = (label: string, pick: (of: (day: TaxDay) => number) => number) =>
    line([
      label,
      ...paymentMethods.map((method) => pick((day) => day.methods[method])),
      pick((day) => day.refunds),
      pick((day) => day.net),
      pick((day) => day.count),
    ])
  const lines = [line(taxColumns)]
  for (const day of days) lines.push(row(day.day, (of) => of(day)))
  lines.push(row('합계', total))
  return Buffer.from(bom + lines.join(''), 'utf8')
}

/** RFC 5987's encoding of a filename* value: every byte but the attr-chars percent-encoded. */
const rfc5987 = (text: string) =>
  encodeURIComponent(text).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)

/**
 * Content-Disposition of the file: an ASCII `filename` for old clients, and the Korean name in
 * `filename*` (RFC 5987/6266): `<store>_매출_<from>_<to>_KST.csv`, the store's name without characters
 * a file system refuses.
 */
export function taxDisposition(storeName: string, from: string, to: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: they are what is replaced
  const store = storeName.replace(/[\u0000-\u001f\u007f\\/:*?"<>|]/g, '_').trim() || 'store'
  const ascii = `sales-${from}-${to}-KST.csv`
  return `attachment; filename="${ascii}"; filename*=UTF-8''${rfc5987(`${store}_매출_${from}_${to}_KST.csv`)}`
}
