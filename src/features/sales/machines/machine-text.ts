// What the machines section says and draws, from the machines answer (docs/product.md §14): pure, so
// the unit tests read the same rules the screen runs.
import type { Machine, MachinesAnswer } from '../../../../contract/machines.ts'
import { silentMachines } from '../../../../domain/machine-silent.ts'
import { methodNames } from '../../../../domain/machines.ts'

export { stateText } from './machine-state.ts'

/** `방금`, `5분 전`, `3시간 전`, `2일 전`, `4개월 전`: how long ago, in Korean. */
export function agoText(instant: string, now: number): string {
  const minutes = Math.floor((now - Date.parse(instant)) / 60_000)
  if (!Number.isFinite(minutes) || minutes < 1) return '방금'
  if (minutes < 60) return `${minutes}분 전`
  const hours = Math.floor(minutes / 60)
  if (hours < 24) return `${hours}시간 전`
  const days = Math.floor(hours / 24)
  if (days < 31) return `${days}일 전`
  const months = Math.floor(days / 30.4)
  return months < 12 ? `${months}개월 전` : `${Math.floor(months / 12)}년 전`
}

/** A bar's width in percent of the largest value (none below zero; 0 when all are 0). */
export const barPercent = (value: number, max: number) =>
  max > 0 ? Math.round((Math.max(0, value) / max) * 1000) / 10 : 0

export interface MethodShare {
  method: keyof typeof methodNames
  name: string
  sum: number
  count: number
  /** Its share of the month's sales (refunds not included), whole percent. */
  percent: number
}

/** The month's sales by payment method, largest first, with their shares; methods with no sale left out. */
export function methodShares(methods: MachinesAnswer['methods']): MethodShare[] {
  const total = methods.reduce((sum, method) => sum + Math.max(0, method.sum ?? 0), 0)
  return methods
    .filter((method) => method.count > 0 || (method.sum ?? 0) !== 0)
    .map((method) => ({
      method: method.method,
      name: methodNames[method.method] ?? method.method,
      sum: method.sum ?? 0,
      count: method.count,
      percent: total > 0 ? Math.round((Math.max(0, method.sum ?? 0) / total) * 100) : 0,
    }))
    .sort((a, b) => b.sum - a.sum)
}

/**
 * The month's net sum on no machine (records naming none, decision 172): the screen's own month total
 * minus the machines' month sums; 0 when they agree.
 */
export const restOfMonth = (monthTotal: number, machines: readonly Pick<Machine, 'month'>[]) =>
  monthTotal - machines.reduce((sum, machine) => sum + (machine.month.sum ?? 0), 0)

/**
 * The machines gone silent by the machine-silent rule (domain/machine-silent.ts, the alert's own), from
 * the machines answer: what it carries of each machine (`silence`) and the days its history covers.
 * Empty from an answer without them (an older server).
 */
export function silentMachineNames(answer: Pick<MachinesAnswer, 'machines' | 'historyDays'>): Set<string> {
  const reads = answer.machines.flatMap((machine) =>
    machine.silence
      ? [
          {
            machine: machine.machine,
            kind: machine.kind,
            ...machine.silence,
            lastSaleAt: machine.lastSaleAt === null ? null : Date.parse(machine.lastSaleAt),
            error: machine.state === 'error',
          },
        ]
      : [],
  )
  return new Set(silentMachines(reads, answer.historyDays).keys())
}
