// The sales the server acknowledged, kept a while in case it loses them (a snapshot restored, a power
// cut of its embedded database) and says so with a new generation: then they are sent again. Kept
// KEPT_MS (7 days) and KEPT_BYTES (1 MiB of their JSON) at most, the oldest dropped first.
import type { Sale } from './batch.ts'

/** How long an acknowledged sale is kept, to be sent again to a server that lost it. */
export const KEPT_MS = 7 * 24 * 60 * 60 * 1000
/** At most this many bytes (their JSON) of acknowledged sales are kept; the oldest go first. */
export const KEPT_BYTES = 1024 * 1024

interface KeptSale {
  sale: Sale
  /** When the server acknowledged it (ms). */
  at: number
  bytes: number
}

export class KeptSales {
  /** Oldest acknowledgement first. */
  private readonly sales = new Map<string, KeptSale>()
  private total = 0

  constructor(private readonly limits: { keptMs: number; keptBytes: number; now: () => number }) {}

  get size() {
    return this.sales.size
  }

  /** Keeps a sale acknowledged at `at` (ms); kept again, it moves to the newest. */
  keep(sale: Sale, at: number) {
    const bytes = Buffer.byteLength(JSON.stringify(sale))
    const before = this.sales.get(sale.id)
    if (before) {
      this.sales.delete(sale.id)
      this.total -= before.bytes
    }
    this.sales.set(sale.id, { sale, at, bytes })
    this.total += bytes
  }

  /** Drops acknowledged sales past their age, then the oldest until they fit their bytes. */
  prune() {
    const oldest = this.limits.now() - this.limits.keptMs
    for (const [id, kept] of this.sales) {
      if (kept.at >= oldest && this.total <= this.limits.keptBytes) break
      this.sales.delete(id)
      this.total -= kept.bytes
    }
  }

  /** Every kept sale, oldest acknowledgement first, and none kept after. */
  takeAll(): Sale[] {
    const all = this.list()
    this.sales.clear()
    this.total = 0
    return all
  }

  /** The kept sales, oldest acknowledgement first. */
  list(): Sale[] {
    return [...this.sales.values()].map((kept) => kept.sale)
  }

  /** The kept sales grouped by consecutive acknowledgement time, as a compaction journals them. */
  groups(): { at: number; sales: Sale[] }[] {
    const groups: { at: number; sales: Sale[] }[] = []
    let group: { at: number; sales: Sale[] } | undefined
    for (const { sale, at } of this.sales.values()) {
      if (group?.at !== at) {
        group = { at, sales: [] }
        groups.push(group)
      }
      group.sales.push(sale)
    }
    return groups
  }
}
