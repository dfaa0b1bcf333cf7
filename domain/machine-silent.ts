// Is one machine silent while the others of its kind keep selling (docs/product.md §12, decisions 190, 242)? A dead washer
// never shows in the store's total: its customers take the washer beside it. The rule, in one place for
// the server's alerts and the machines section's rows:
//
// - Each sale of a kind lands on one of its machines; a machine's share p of its kind's sales is read
//   from the HISTORY_DAYS days before today, shrunk toward 1/k (k machines of the kind) by
//   SHARE_PRIOR_SALES, so a new machine (few sales yet) starts near an equal share.
// - The evidence is the machine's expected sales since its last sale: the sales the other machines of
//   its kind made since then × p. It resets only on the machine's own sale.
// - If each sale picks the machine with probability p, the kind's sales between two of its sales are
//   geometric: P(x or more without it) = (1 - p)^x. It makes p × N runs a month (N the kind's sales a
//   month), so false alerts a month = p·N·(1 - p)^x; the threshold x* sets that to the machine's part of
//   MACHINE_FALSE_ALERT_BUDGET (split evenly over the store's machines the rule watches):
//   x* = ln(p·N / budget) / -ln(1 - p), at least MIN_OTHERS_SALES. In expected sales: x* × p.
// - But a machine running (45 minutes) cannot sell, and once free it is picked more often than p (the
//   others are busy): its runs are shorter and more regular than geometric, and x* spends almost none of
//   the budget (decision 242). So its own runs in the days read, counted at 1, 2, 4, …, give a second
//   threshold (fittedThreshold: an exponential tail fitted where the runs thin out), and the lower of
//   the two holds.
// - Watched: washers and dryers with at least one other of their kind, a sale already, a kind that sold
//   MIN_KIND_SALES in the days read, and not reporting an error (the error alert says that).
//
// Pure: no clock, no I/O; the callers count the sales.
import type { MachineKind } from './machines.ts'

/** The days of history the shares are read from (those before today's UTC day). */
export const HISTORY_DAYS = 28
/** A machine's share weighs its sales against this many sales at an equal share. */
export const SHARE_PRIOR_SALES = 20
/** A kind selling fewer sales than this in the days read: too little to know its shares. */
export const MIN_KIND_SALES = 50
/** False alerts a store-month the thresholds allow, all its machines together (the target is at most 1). */
export const MACHINE_FALSE_ALERT_BUDGET = 0.35
/** Never fewer of the others' sales than this before a machine is called silent. */
export const MIN_OTHERS_SALES = 4
/** A machine's runs are counted at 1, 2, 4, … and 2^(RUN_LEVELS - 1) of the others' sales. */
export const RUN_LEVELS = 8
/** The tail is fitted at the highest level reached by at least this many runs. */
export const MIN_TAIL_RUNS = 20
const monthDays = 30.44

/** What the rule reads of one machine. */
export interface MachineRead {
  machine: string
  kind: MachineKind
  /** Its sales (not refunds) in the HISTORY_DAYS days read. */
  historySales: number
  /** Its newest sale (epoch ms); null: none. */
  lastSaleAt: number | null
  /** Whether its devices report it in error now. */
  error?: boolean
  /**
   * Its runs in the days read (the others' sales between two consecutive sales of its): runs[k] of them
   * reached 2^k, k < RUN_LEVELS. Absent: the geometric threshold alone.
   */
  runs?: readonly number[]
}

/** One watched machine's model: its share, and how many of the others' sales make it silent. */
export interface MachineModel {
  share: number
  /** The others' sales since its last sale at which it is silent. */
  othersThreshold: number
  /** The same in its own expected sales (othersThreshold × share). */
  threshold: number
}

const watchedKinds: readonly MachineKind[] = ['washer', 'dryer']

/**
 * The model of each machine the rule watches, by its name; the others are not in the map. `days`: the
 * days the history counts cover (HISTORY_DAYS, fewer for a store younger than that).
 */
export function machineModels(
  machines: readonly MachineRead[],
  days = HISTORY_DAYS,
): Map<string, MachineModel> {
  const byKind = new Map<MachineKind, MachineRead[]>()
  for (const machine of machines) {
    if (!watchedKinds.includes(machine.kind)) continue
    byKind.set(machine.kind, [...(byKind.get(machine.kind) ?? []), machine])
  }
  const watched: { machine: MachineRead; share: number; kindSales: number }[] = []
  for (const group of byKind.values()) {
    const kindSales = group.reduce((sum, m) => sum + m.historySales, 0)
    if (group.length < 2 || kindSales < MIN_KIND_SALES) continue
    for (const machine of group) {
      if (machine.lastSaleAt === null || machine.error) continue
      const share =
        (machine.historySales + SHARE_PRIOR_SALES / group.length) / (kindSales + SHARE_PRIOR_SALES)
      watched.push({ machine, share, kindSales })
    }
  }
  const models = new Map<string, MachineModel>()
  const budget = MACHINE_FALSE_ALERT_BUDGET / Math.max(1, watched.length)
  for (const { machine, share, kindSales } of watched) {
    const runsPerMonth = (share * kindSales * monthDays) / Math.max(1, days)
    const raw = Math.log(runsPerMonth / budget) / -Math.log1p(-share)
    const othersThreshold = Math.max(
      MIN_OTHERS_SALES,
      Math.ceil(Math.min(raw, fittedThreshold(machine.runs ?? [], days, budget))),
    )
    models.set(machine.machine, { share, othersThreshold, threshold: othersThreshold * share })
  }
  return models
}

/**
 * The others' sales at which the machine's own runs reach `budget` a month: the tail between the highest
 * level u = 2^(k-1) → v = 2^k that MIN_TAIL_RUNS runs reached, exponential of scale s = (v - u) / ln(n_u / n_v),
 * so runs ≥ x a month = n_v/month × e^(-(x - v)/s). Infinity when no level has runs enough.
 */
function fittedThreshold(runs: readonly number[], days: number, budget: number) {
  for (let k = runs.length - 1; k > 0; k--) {
    const over = runs[k] as number
    const under = runs[k - 1] as number
    if (over < MIN_TAIL_RUNS || under <= over) continue
    const scale = 2 ** (k - 1) / Math.log(under / over)
    return 2 ** k + scale * Math.log(Math.max(1, (over * monthDays) / Math.max(1, days) / budget))
  }
  return Number.POSITIVE_INFINITY
}

export interface SilentMachine {
  machine: string
  /** The sales of the other machines of its kind since its last sale. */
  othersSales: number
  /** Its expected sales since its last sale (othersSales × its share). */
  expectedSales: number
  /** Its last sale (epoch ms): the silent episode began then. */
  since: number
}

/**
 * Whether one machine is silent: `othersSince` is the sales of the other machines of its kind since its
 * last sale. Null when it is not, or is not watched.
 */
export function machineSilence(
  machine: MachineRead,
  model: MachineModel | undefined,
  othersSince: number,
): SilentMachine | null {
  if (!model || machine.lastSaleAt === null || othersSince < model.othersThreshold) return null
  return {
    machine: machine.machine,
    othersSales: othersSince,
    expectedSales: othersSince * model.share,
    since: machine.lastSaleAt,
  }
}

/** Each silent machine of a store, by name: `othersSince` gives each machine's others' sales since its last sale. */
export function silentMachines(
  machines: readonly (MachineRead & { othersSince: number })[],
  days = HISTORY_DAYS,
): Map<string, SilentMachine> {
  const models = machineModels(machines, days)
  const silent = new Map<string, SilentMachine>()
  for (const machine of machines) {
    const found = machineSilence(machine, models.get(machine.machine), machine.othersSince)
    if (found) silent.set(machine.machine, found)
  }
  return silent
}
