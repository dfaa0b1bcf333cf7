// The sales screen of a store whose won amounts the owner hides from the user (docs/product.md §15):
// the machines section without sums (their turns and states), which says why under a short notice in
// place of the totals and charts (in its own chunk: the sales screen's first chunk stays as it was).
import type { Store } from '../../../contract/api.ts'
import { currentPeriod } from '../../figures/clock.ts'
import { MachinesSlot } from './machines-slot.tsx'
import { MonthNavigator } from './month-navigator.tsx'
import type { Period } from './period.ts'
import { SalesHeading } from './sales-heading.tsx'

export function MoneyHidden({
  store,
  period,
  now,
  onPeriodChange,
}: {
  store: Store
  period: Period
  now: Date
  onPeriodChange(period: Period): void
}) {
  const today = currentPeriod(now)
  return (
    <main className="sales">
      <SalesHeading storeName={store.name} period={period} />
      <MonthNavigator period={period} onChange={onPeriodChange} />
      <MachinesSlot
        {...period}
        storeId={store.id}
        now={now}
        isCurrentMonth={period.year === today.year && period.month === today.month}
      />
    </main>
  )
}
