// The order of a store's machines in its answer (docs/product.md §14): washers, then dryers, then the
// rest; within a kind by the name shown, numbers read as numbers (W2 before W10, 세탁기2 before 세탁기10).
import { type MachineKind, machineKinds } from '../../domain/machines.ts'

const collator = new Intl.Collator('ko', { numeric: true, sensitivity: 'base' })

export interface Ordered {
  kind: MachineKind
  name: string
  machine: string
}

/** Compares two machines for the answer's order; the devices' name breaks a tie of shown names. */
export function compareMachines(a: Ordered, b: Ordered): number {
  return (
    machineKinds.indexOf(a.kind) - machineKinds.indexOf(b.kind) ||
    collator.compare(a.name, b.name) ||
    collator.compare(a.machine, b.machine) ||
    (a.machine < b.machine ? -1 : a.machine > b.machine ? 1 : 0)
  )
}
