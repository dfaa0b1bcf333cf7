// The machines answer (GET /api/v0/store/{id}/machines, docs/product.md §14): every machine row of the
// store with its state as its devices last reported it and the month's figures, the month's sales by
// payment method, and the month's refunds. The figures are the UTC month asked and, for `today`, the
// UTC day of the answer's instant (the dashboard's days, decision 4).
import { and, eq } from 'drizzle-orm'
import type { Machine, MachinesAnswer } from '../../contract/machines.ts'
import type { MachineKind, MachineState } from '../../domain/machines.ts'
import type { Db } from '../db/client.ts'
import { machines } from '../db/schema.ts'
import { monthFigures, noFigures } from './figures.ts'
import { compareMachines } from './order.ts'
import { machinesSilence } from './silence.ts'

export interface MachinesAsked {
  storeId: number
  year: number
  month: number
  now: Date
  /** Only this machine (the answer of a rename); the methods and refunds stay the store's. */
  machine?: string
}

const iso = (instant: Date | null) => (instant ? instant.toISOString() : null)

export async function machinesAnswer(db: Db, asked: MachinesAsked): Promise<MachinesAnswer> {
  const { storeId, year, month, now } = asked
  const where = asked.machine
    ? and(eq(machines.storeId, storeId), eq(machines.machine, asked.machine))
    : eq(machines.storeId, storeId)
  const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()))
  // Side by side on PostgreSQL's pool; one after the other on the embedded database.
  const [rows, figures, silence] = await Promise.all([
    db.select().from(machines).where(where),
    monthFigures(db, { storeId, year, month, dayStart, machine: asked.machine }),
    // What the machine-silent rule reads, for the whole store's answer only.
    asked.machine ? null : machinesSilence(db, storeId, now),
  ])
  const answered: Machine[] = rows.map((row) => ({
    machine: row.machine,
    name: row.name ?? row.machine,
    kind: (row.kind ?? row.reportedKind ?? 'other') as MachineKind,
    state: row.state as MachineState | null,
    stateSince: iso(row.stateSince),
    code: row.code,
    lastSaleAt: iso(row.lastSaleAt),
    ...(figures.machines.get(row.machine) ?? noFigures()),
    ...(silence?.machines.has(row.machine) ? { silence: silence.machines.get(row.machine) } : {}),
  }))
  answered.sort(compareMachines)
  return {
    at: now.toISOString(),
    machines: answered,
    methods: figures.methods,
    refunds: figures.refunds,
    ...(silence ? { historyDays: silence.days } : {}),
  }
}

/** The answer without a won amount: turns, counts and states stay (docs/product.md §15, hidden money). */
export function withoutMoney(answer: MachinesAnswer): MachinesAnswer {
  const count = ({ count }: { count: number }) => ({ count })
  return {
    ...answer,
    machines: answer.machines.map((machine) => ({
      ...machine,
      month: count(machine.month),
      today: count(machine.today),
      refunds: count(machine.refunds),
    })),
    methods: answer.methods.map(({ method, count }) => ({ method, count })),
    refunds: count(answer.refunds),
  }
}
