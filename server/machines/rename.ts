// An owner's name and kind for a machine (docs/product.md §14): they win over what the devices say; null
// gives the devices' back, an absent field stays as it is. A device never writes these two columns.
import { and, eq } from 'drizzle-orm'
import type { MachineKind } from '../../domain/machines.ts'
import type { Db } from '../db/client.ts'
import { machines } from '../db/schema.ts'

export interface MachineChange {
  /** Trimmed, 1–40 characters; null: the devices' name again. */
  name?: string | null
  kind?: MachineKind | null
}

/** Applies the change; false when the store has no such machine. */
export async function renameMachine(
  db: Db,
  storeId: number,
  machine: string,
  change: MachineChange,
): Promise<boolean> {
  const set: Partial<typeof machines.$inferInsert> = {}
  if (change.name !== undefined) set.name = change.name
  if (change.kind !== undefined) set.kind = change.kind
  const where = and(eq(machines.storeId, storeId), eq(machines.machine, machine))
  // Nothing to change still answers whether the machine exists.
  const updated =
    Object.keys(set).length === 0
      ? await db.select({ machine: machines.machine }).from(machines).where(where)
      : await db.update(machines).set(set).where(where).returning({ machine: machines.machine })
  return updated.length > 0
}
