// The sales screen's machines section (docs/product.md §14): below the charts, in its own chunk loaded
// once the first figures show (sales/machines-slot.tsx). For the store and UTC month shown: each
// machine's month revenue and turns as bars, its state, last sale and today's revenue; the month's split
// by payment method, its refunds beside the net total, and what no machine holds (decision 172). Owners
// rename a machine in place and download the tax export. Asked again after each change of the
// store-year shown and every 60 s while visible (decision 174).
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useId } from 'react'
import type { Machine } from '../../../../contract/machines.ts'
import { won } from '../../../../domain/format.ts'
import { onYearChange } from '../../../figures/live.ts'
import { useStoreStore } from '../../../lib/session-state.ts'
import { usageKeys } from '../../../lib/usage-keys.ts'
import { MachineRow } from './machine-row.tsx'
import { methodShares, restOfMonth, silentMachineNames } from './machine-text.ts'
import { machinesQuery } from './machines-query.ts'
import { TaxExport } from './tax-export.tsx'
import './machines.css'

export interface MachinesSectionProps {
  storeId: number
  year: number
  month: number
  /**
   * The screen's own month total (the usage figures): the net total shown, and the rest's base; absent
   * when the owner hides the store's won amounts from the user (turns and states only, §15).
   */
  monthTotal?: number
  /** The screen's one reading of the clock. */
  now: Date
  /** Whether the month shown is this month (UTC): today's revenue is then shown. */
  isCurrentMonth: boolean
}

/** Asks again for the month's machines after each change of the store-year's figures (decision 174). */
function useRefetchOnYearChange(storeId: number, year: number, month: number) {
  const client = useQueryClient()
  useEffect(
    () =>
      onYearChange(client, storeId, year, () => {
        void client.invalidateQueries({ queryKey: usageKeys.machines(storeId, year, month) })
      }),
    [client, storeId, year, month],
  )
}

export function MachinesSection({
  storeId,
  year,
  month,
  monthTotal,
  now,
  isCurrentMonth,
}: MachinesSectionProps) {
  const headingId = useId()
  const query = useQuery(machinesQuery(storeId, year, month))
  useRefetchOnYearChange(storeId, year, month)
  const owner = useStoreStore((state) => state.stores.find((store) => store.id === storeId)?.role === 'owner')
  const storeName = useStoreStore((state) => state.stores.find((store) => store.id === storeId)?.name)
  const answer = query.data
  return (
    <section className="machines" aria-labelledby={headingId} data-testid="machines">
      {monthTotal === undefined && (
        <p className="sales-notice" role="status" data-testid="money-hidden">
          매장 주인이 이 매장의 금액을 보지 않도록 설정했습니다. 기계의 사용 횟수와 상태만 보입니다.
        </p>
      )}
      <h2 id={headingId} className="machines-title">
        {month}월 기계별 {monthTotal === undefined ? '사용' : '매출'}
      </h2>
      {!answer ? (
        query.isError ? (
          <p className="machines-note" role="status">
            기계 정보를 불러오지 못했습니다
            <button type="button" className="retry-button" onClick={() => void query.refetch()}>
              다시 시도
            </button>
          </p>
        ) : (
          <p className="machines-note" role="status">
            기계 정보를 불러오는 중…
          </p>
        )
      ) : (
        <MachinesFigures
          storeId={storeId}
          month={month}
          monthTotal={monthTotal}
          machines={answer.machines}
          silent={isCurrentMonth ? silentMachineNames(answer) : noneSilent}
          methods={answer.methods}
          refunds={answer.refunds}
          now={now.getTime()}
          isCurrentMonth={isCurrentMonth}
          owner={owner}
        />
      )}
      {owner && <TaxExport storeId={storeId} storeName={storeName ?? '매장'} now={now} />}
    </section>
  )
}

const noneSilent = new Set<string>()

function MachinesFigures({
  storeId,
  month,
  monthTotal,
  machines,
  silent,
  methods,
  refunds,
  now,
  isCurrentMonth,
  owner,
}: {
  storeId: number
  month: number
  monthTotal: number | undefined
  machines: Machine[]
  /** The machines the machine-silent rule flags (this month only). */
  silent: Set<string>
  methods: Parameters<typeof methodShares>[0]
  refunds: { sum?: number | undefined; count: number }
  now: number
  isCurrentMonth: boolean
  owner: boolean
}) {
  const maxSum = Math.max(0, ...machines.map((machine) => machine.month.sum ?? 0))
  const maxCount = Math.max(0, ...machines.map((machine) => machine.month.count))
  const rest = monthTotal === undefined ? 0 : restOfMonth(monthTotal, machines)
  const shares = methodShares(methods)
  return (
    <>
      {machines.length === 0 ? (
        <p className="machines-note">
          아직 기계 정보가 없습니다. 단말기가 기계 이름을 보내면 여기에 나옵니다.
        </p>
      ) : (
        <ul className="machine-list">
          {machines.map((machine) => (
            <MachineRow
              key={machine.machine}
              storeId={storeId}
              machine={machine}
              month={month}
              maxSum={maxSum}
              maxCount={maxCount}
              now={now}
              isCurrentMonth={isCurrentMonth}
              owner={owner}
              silent={silent.has(machine.machine)}
            />
          ))}
        </ul>
      )}
      {rest !== 0 && (
        <p className="machines-rest" data-testid="machines-rest">
          <span>기계 정보 없음</span> <strong>{won(rest)}</strong>
        </p>
      )}
      {monthTotal !== undefined && (
        <div className="machines-money">
          <section className="machines-methods" aria-label={`${month}월 결제 수단별 매출`}>
            <h3>결제 수단</h3>
            {shares.length === 0 ? (
              <p className="machines-note">이 달에는 아직 매출이 없습니다</p>
            ) : (
              <ul className="method-list">
                {shares.map((share) => (
                  <li key={share.method} className="method" data-testid="method" data-method={share.method}>
                    <span className="method-name">{share.name}</span>
                    <span
                      className="method-bar"
                      role="img"
                      aria-label={`${share.name} ${share.percent}%, ${won(share.sum)}, ${share.count}건`}
                    >
                      <span style={{ width: `${share.percent}%` }} />
                    </span>
                    <span className="method-percent">{share.percent}%</span>
                    <span className="method-sum">{won(share.sum)}</span>
                  </li>
                ))}
              </ul>
            )}
          </section>
          <dl className="machines-totals">
            <div>
              <dt>{month}월 순매출</dt>
              <dd data-testid="machines-net">{won(monthTotal)}</dd>
            </div>
            <div className="machines-refunds" data-testid="machines-refunds">
              <dt>환불</dt>
              <dd>
                {refunds.count}건 · {won(refunds.sum ?? 0)}
              </dd>
            </div>
          </dl>
        </div>
      )}
    </>
  )
}
