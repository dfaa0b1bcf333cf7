// The owner's tax export (docs/product.md §14, decision 173): the VAT periods as one click each, or any
// range of Korean calendar days, downloaded as the server's tax.csv. The token is no cookie, so the file
// is fetched with it (lib/api.ts) and handed to the browser as a blob.
import { useId, useState } from 'react'
import { request } from '../../../lib/api.ts'
import { kstToday, type TaxPeriod, taxFileName, vatPeriods } from './tax-periods.ts'

/** The tax export's call for a range of Korean calendar days. */
export const taxExportPath = (storeId: number, from: string, to: string) =>
  `/api/v0/store/${storeId}/export/tax.csv?from=${from}&to=${to}`

async function downloadTax(storeId: number, storeName: string, from: string, to: string) {
  const response = await request(taxExportPath(storeId, from, to), { accept: 'text/csv' })
  const file = await response.blob()
  const { downloadCsv } = await import('../export-csv.ts')
  downloadCsv(taxFileName(storeName, from, to, response.headers.get('content-disposition')), file)
}

export function TaxExport({ storeId, storeName, now }: { storeId: number; storeName: string; now: Date }) {
  const headingId = useId()
  const fromId = useId()
  const toId = useId()
  const today = kstToday(now)
  const [from, setFrom] = useState(`${today.slice(0, 4)}-01-01`)
  const [to, setTo] = useState(today)
  const [pending, setPending] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const download = async (range: Pick<TaxPeriod, 'from' | 'to'>) => {
    if (range.from > range.to) return setError('시작일이 종료일보다 늦습니다.')
    setPending(true)
    setError(null)
    try {
      await downloadTax(storeId, storeName, range.from, range.to)
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure))
    } finally {
      setPending(false)
    }
  }
  return (
    <section className="tax-export" aria-labelledby={headingId}>
      <h3 id={headingId}>부가세 신고 자료 (CSV)</h3>
      <p className="machines-note">한국 날짜별 결제 수단·환불·순매출 (사장님만)</p>
      <div className="tax-periods">
        {vatPeriods(now).map((period) => (
          <button
            key={period.from}
            type="button"
            className="export-button"
            disabled={pending}
            onClick={() => void download(period)}
          >
            {period.label}
          </button>
        ))}
      </div>
      <form
        className="tax-range"
        onSubmit={(event) => {
          event.preventDefault()
          void download({ from, to })
        }}
      >
        <span className="tax-date">
          <label htmlFor={fromId}>시작일</label>
          <input
            id={fromId}
            type="date"
            value={from}
            required
            onChange={(event) => setFrom(event.target.value)}
          />
        </span>
        <span className="tax-date">
          <label htmlFor={toId}>종료일</label>
          <input id={toId} type="date" value={to} required onChange={(event) => setTo(event.target.value)} />
        </span>
        <button type="submit" className="export-button" disabled={pending}>
          기간 내려받기
        </button>
      </form>
      {error && (
        <p className="machine-error" role="alert">
          {error}
        </p>
      )}
    </section>
  )
}
