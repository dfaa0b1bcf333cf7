// The machine-silent rule (domain/machine-silent.ts): against a slow, obviously correct reference on
// random sale histories (each sale of a store on one machine), and its false alerts on a long replay of
// machines chosen at random by their shares (the geometric tail the threshold is set on).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  HISTORY_DAYS,
  MACHINE_FALSE_ALERT_BUDGET,
  MIN_KIND_SALES,
  MIN_OTHERS_SALES,
  MIN_TAIL_RUNS,
  machineModels,
  RUN_LEVELS,
  SHARE_PRIOR_SALES,
  silentMachines,
} from '../../domain/machine-silent.ts'
import type { MachineKind } from '../../domain/machines.ts'
import { seededRandom } from '../../scripts/seeded-random.ts'

interface Sale {
  at: number
  machine: number
}

/** A machine's runs in the history: for each two consecutive sales of its, the sales of its mates between, one by one. */
function runsOf(index: number, mates: number[], history: Sale[]) {
  const own = history.flatMap((sale, i) => (sale.machine === index ? [i] : []))
  return own.slice(1).map((at, n) => {
    let others = 0
    for (let i = (own[n] as number) + 1; i < at; i++)
      if (mates.includes((history[i] as Sale).machine)) others++
    return others
  })
}

/** The runs' counts the rule reads: how many reached 1, 2, 4, … */
const levelCounts = (runs: number[]) =>
  Array.from({ length: RUN_LEVELS }, (_, k) => runs.filter((run) => run >= 2 ** k).length)

/**
 * The fitted tail's expected runs a month reaching x (Infinity below its level or without one): the
 * highest level v reached by MIN_TAIL_RUNS runs with fewer runs than at v/2, exponential beyond it.
 */
function fittedRunsReaching(runs: number[], x: number) {
  for (let v = 2 ** (RUN_LEVELS - 1); v >= 2; v /= 2) {
    const over = runs.filter((run) => run >= v).length
    const under = runs.filter((run) => run >= v / 2).length
    if (over < MIN_TAIL_RUNS || under === over) continue
    if (x < v) return Number.POSITIVE_INFINITY
    return ((over * 30.44) / HISTORY_DAYS) * Math.exp((-(x - v) * Math.log(under / over)) / (v / 2))
  }
  return Number.POSITIVE_INFINITY
}

/** The reference: counts every sale one by one, and finds the threshold by trying x = 0, 1, 2, … */
function reference(kinds: MachineKind[], errors: boolean[], history: Sale[], recent: Sale[]) {
  const silent = new Map<string, number>()
  const thresholds = new Map<string, number>()
  const watched: { index: number; share: number; kindSales: number }[] = []
  for (let index = 0; index < kinds.length; index++) {
    const kind = kinds[index] as MachineKind
    if (kind === 'other') continue
    const mates = kinds.flatMap((k, i) => (k === kind ? [i] : []))
    const kindSales = history.filter((sale) => mates.includes(sale.machine)).length
    const own = history.filter((sale) => sale.machine === index).length
    const all = [...history, ...recent]
    const hasSale = all.some((sale) => sale.machine === index)
    if (mates.length < 2 || kindSales < MIN_KIND_SALES || !hasSale || errors[index]) continue
    watched.push({
      index,
      share: (own + SHARE_PRIOR_SALES / mates.length) / (kindSales + SHARE_PRIOR_SALES),
      kindSales,
    })
  }
  for (const { index, share, kindSales } of watched) {
    const budget = MACHINE_FALSE_ALERT_BUDGET / watched.length
    const runs = (share * kindSales * 30.44) / HISTORY_DAYS
    const mates = kinds.flatMap((k, i) => (k === kinds[index] ? [i] : []))
    const own = runsOf(index, mates, history)
    // The lower of the geometric threshold and the one of its fitted tail, at least MIN_OTHERS_SALES.
    let x = 0
    while ((runs * (1 - share) ** x > budget && fittedRunsReaching(own, x) > budget) || x < MIN_OTHERS_SALES)
      x++
    const all = [...history, ...recent].sort((a, b) => a.at - b.at)
    let last = -1
    all.forEach((sale, i) => {
      if (sale.machine === index) last = i
    })
    const others = all.slice(last + 1).filter((sale) => mates.includes(sale.machine)).length
    thresholds.set(String(index), x)
    if (others >= x) silent.set(String(index), others)
  }
  return { silent, thresholds }
}

describe('machine-silent rule', () => {
  it('agrees with the slow reference on random histories', () => {
    const kind = fc.constantFrom<MachineKind>('washer', 'dryer', 'other')
    fc.assert(
      fc.property(
        fc.array(fc.tuple(kind, fc.boolean(), fc.nat(30)), { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(5), { maxLength: 80 }),
        fc.nat(),
        (machines, recentPicks, seed) => {
          const random = seededRandom(seed)
          const kinds = machines.map(([k]) => k)
          const errors = machines.map(([, error]) => error && random() < 0.3)
          // History: each machine's weight; sales picked by weight, often enough to pass MIN_KIND_SALES.
          const weights = machines.map(([, , w]) => w + 1)
          // A machine just picked sits out the next `busy` picks (0–5: as if running), so its runs are
          // often shorter than geometric and the fitted tail decides.
          const busy = Math.floor(random() * 6)
          const resting = new Map<number, number>()
          const pick = () => {
            const free = weights.map((w, i) => ((resting.get(i) ?? 0) > 0 ? 0 : w))
            const pool = free.some((w) => w > 0) ? free : weights
            let r = random() * pool.reduce((a, b) => a + b, 0)
            let chosen = weights.length - 1
            for (let i = 0; i < pool.length; i++) {
              r -= pool[i] as number
              if (r < 0) {
                chosen = i
                break
              }
            }
            for (const [i, left] of resting) resting.set(i, left - 1)
            resting.set(chosen, busy)
            return chosen
          }
          const history: Sale[] = Array.from(
            { length: Math.floor(random() * (random() < 0.5 ? 400 : 3000)) },
            (_, i) => ({
              at: i,
              machine: pick(),
            }),
          )
          const recent: Sale[] = recentPicks
            .filter((m) => m < machines.length)
            .map((machine, i) => ({ at: 10_000 + i, machine }))
          const all = [...history, ...recent]
          // The runs counted in one pass (as the server and the calibration count them), the reference's one by one.
          const runs = kinds.map(() => Array<number>(RUN_LEVELS).fill(0))
          const numbered = new Map<MachineKind, number>()
          const previous = new Map<number, number>()
          for (const sale of history) {
            const kind = kinds[sale.machine] as MachineKind
            const n = numbered.get(kind) ?? 0
            numbered.set(kind, n + 1)
            const before = previous.get(sale.machine)
            previous.set(sale.machine, n)
            const counts = runs[sale.machine] as number[]
            if (before !== undefined)
              for (let k = 0; k < RUN_LEVELS && n - before - 1 >= 2 ** k; k++)
                counts[k] = (counts[k] as number) + 1
          }
          const reads = kinds.map((k, index) => {
            const mine = all.filter((sale) => sale.machine === index)
            const last = mine.at(-1)?.at ?? null
            return {
              machine: String(index),
              kind: k,
              runs: runs[index],
              historySales: history.filter((sale) => sale.machine === index).length,
              lastSaleAt: last,
              error: errors[index],
              othersSince: all.filter((sale) => kinds[sale.machine] === k && sale.at > (last ?? -1)).length,
            }
          })
          const found = silentMachines(reads)
          const expected = reference(kinds, errors, history, recent)
          expect(new Map([...found].map(([name, s]) => [name, s.othersSales]))).toEqual(expected.silent)
          const models = machineModels(reads)
          expect(new Map([...models].map(([name, m]) => [name, m.othersThreshold]))).toEqual(
            expected.thresholds,
          )
        },
      ),
      { numRuns: 300 },
    )
  })

  it('a machine choosing by its share alone is called silent at most about its budget a month', () => {
    const random = seededRandom(7)
    const weights = [5, 3, 2, 1]
    const total = weights.reduce((a, b) => a + b, 0)
    const perDay = 60
    // History: 28 days of sales by weight, to set each machine's model.
    const count = (days: number) => {
      const counts = weights.map(() => 0)
      const sequence: number[] = []
      for (let n = 0; n < days * perDay; n++) {
        let r = random() * total
        let pick = 0
        while (r >= (weights[pick] as number)) r -= weights[pick++] as number
        counts[pick] = (counts[pick] as number) + 1
        sequence.push(pick)
      }
      return { counts, sequence }
    }
    const history = count(HISTORY_DAYS)
    const models = machineModels(
      weights.map((_, i) => ({
        machine: String(i),
        kind: 'washer' as const,
        historySales: history.counts[i] as number,
        lastSaleAt: 0,
      })),
    )
    expect(models.size).toBe(4)
    // Replay 60 months: an alert each time a machine's run of others' sales reaches its threshold.
    const months = 60
    const { sequence } = count(Math.round(months * 30.44))
    const since = weights.map(() => 0)
    let alerts = 0
    for (const pick of sequence) {
      since.forEach((others, i) => {
        if (i === pick) since[i] = 0
        else {
          since[i] = others + 1
          if (since[i] === models.get(String(i))?.othersThreshold) alerts++
        }
      })
    }
    // Poisson noise on a mean of 0.35 × 60 = 21: well under twice the budget.
    expect(alerts / months).toBeLessThan(2 * MACHINE_FALSE_ALERT_BUDGET)
    expect(alerts).toBeGreaterThan(0)
  })

  it('machines busy after each sale: the fitted tail alerts sooner than the geometric one, within its budget', () => {
    // 8 washers, 100 sales a day over 12 open hours at Poisson instants, each sale on a free washer by
    // weight (all busy: any), a washer busy 45 minutes after its sale: runs much shorter than geometric.
    const random = seededRandom(11)
    const weights = [1.4, 1.2, 1.1, 1, 1, 0.9, 0.8, 0.6]
    const sequence = (days: number) => {
      const picks: number[] = []
      const busyUntil = weights.map(() => 0)
      for (let day = 0; day < days; day++)
        for (let at = day * 1440 - (720 / 100) * Math.log(random()); at < day * 1440 + 720; ) {
          const free = weights.flatMap((_, i) => ((busyUntil[i] as number) <= at ? [i] : []))
          const pool = free.length > 0 ? free : weights.map((_, i) => i)
          let r = random() * pool.reduce((sum, i) => sum + (weights[i] as number), 0)
          let pick = pool[0] as number
          for (const i of pool) {
            pick = i
            r -= weights[i] as number
            if (r < 0) break
          }
          busyUntil[pick] = at + 45
          picks.push(pick)
          at -= (720 / 100) * Math.log(random())
        }
      return picks
    }
    const history = sequence(HISTORY_DAYS).map((machine, at) => ({ at, machine }))
    const mates = weights.map((_, i) => i)
    const reads = weights.map((_, i) => ({
      machine: String(i),
      kind: 'washer' as const,
      historySales: history.filter((sale) => sale.machine === i).length,
      lastSaleAt: 0,
    }))
    const geometric = machineModels(reads)
    const fitted = machineModels(
      reads.map((read, i) => ({ ...read, runs: levelCounts(runsOf(i, mates, history)) })),
    )
    // 41–62 of the others' sales against 63–77 (seed 11).
    for (const [name, model] of fitted)
      expect(model.othersThreshold).toBeLessThan(0.85 * (geometric.get(name)?.othersThreshold ?? 0))
    // Replay 36 months: an alert each time a washer's run of others' sales reaches its threshold.
    const months = 36
    const since = weights.map(() => 0)
    let alerts = 0
    for (const pick of sequence(Math.round(months * 30.44)))
      since.forEach((others, i) => {
        since[i] = i === pick ? 0 : others + 1
        if (since[i] === fitted.get(String(i))?.othersThreshold) alerts++
      })
    expect(alerts / months).toBeLessThan(2 * MACHINE_FALSE_ALERT_BUDGET)
  })

  it('says nothing of a kind with one machine, of a kind with too few sales, or of `other` machines', () => {
    const read = (machine: string, kind: MachineKind, historySales: number) => ({
      machine,
      kind,
      historySales,
      lastSaleAt: 1,
      othersSince: 1000,
    })
    expect(silentMachines([read('W1', 'washer', 500), read('D1', 'dryer', 500)]).size).toBe(0)
    expect(silentMachines([read('W1', 'washer', 20), read('W2', 'washer', 20)]).size).toBe(0)
    expect(silentMachines([read('X1', 'other', 500), read('X2', 'other', 500)]).size).toBe(0)
    expect([...silentMachines([read('W1', 'washer', 500), read('W2', 'washer', 500)]).keys()]).toEqual([
      'W1',
      'W2',
    ])
  })
})
