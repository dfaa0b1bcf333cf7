// The simulated store of `--simulate` and the live demo (device/simulate.ts): each sale's machine by
// weight among those charging its price, its method by share, a refund about once a week; what the
// heartbeat says: a machine running for its cycle after its sale, the one out of order in its window,
// the payment terminal down in its window with the payments that failed meanwhile.
import { describe, expect, test } from 'vitest'
import type { Sale } from '../../device/batch.ts'
import {
  amountWeights,
  cycleMinutes,
  type DemoMachine,
  inWindow,
  machinePicks,
  machinesFor,
  methodShares,
  type Rhythm,
  simulatedStore,
} from '../../device/simulate.ts'

/** A seeded generator (mulberry32): the same draws every run. */
function seeded(seed: number) {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const at = (iso: string) => Date.parse(iso)
const minute = 60_000
/** Wednesday 2026-11-25, Korea time. */
const day = (time: string) => at(`2026-11-25T${time}:00+09:00`)

function sellMany(rhythm: Rhythm, count: number, when: (i: number) => number, seed = 7) {
  const store = simulatedStore(rhythm, seeded(seed))
  const sales: Sale[] = []
  for (let i = 0; i < count; i++) sales.push(...store.sell(when(i)))
  return { store, sales }
}

describe('the demo stores’ machines', () => {
  test('6 to 12 a store, washers W… (the last the big one) and dryers D…, the bigger store more', () => {
    const names = (perDay: number) => machinesFor(perDay).map((m) => m.machine)
    expect(names(200)).toEqual(['W1', 'W2', 'W3', 'W4', 'W5', 'W6', 'D1', 'D2', 'D3', 'D4'])
    expect(names(85)).toHaveLength(7)
    expect(names(45)).toHaveLength(6)
    const prices = amountWeights.map(([price]) => price)
    for (const perDay of [200, 85, 45]) {
      // Every price is charged by some machine of the store; only the big washer charges 6,000 and more.
      for (const price of prices) expect(machinePicks(machinesFor(perDay), price).length).toBeGreaterThan(0)
      expect(new Set(machinePicks(machinesFor(perDay), 7000)).size).toBe(1)
    }
  })

  test('a sale’s machine is drawn by weight among those charging its price, its method by share', () => {
    const machines = machinesFor(200)
    const { sales } = sellMany({ perDay: 200 }, 40_000, (i) => day('10:00') + i * 1000)
    const sold = sales.filter((sale) => sale.amount >= 0)
    const byName = new Map(machines.map((m): [string, DemoMachine] => [m.machine, m]))
    for (const sale of sold) expect(byName.get(sale.machine ?? '')?.prices).toContain(sale.amount)
    const count = (name: string) => sold.filter((sale) => sale.machine === name).length
    // Weights 9 and 3 among the washers; 8 and 2 among the dryers.
    expect(count('W1') / count('W5')).toBeGreaterThan(2.5)
    expect(count('W1') / count('W5')).toBeLessThan(3.5)
    expect(count('D1') / count('D4')).toBeGreaterThan(3.4)
    expect(count('D1') / count('D4')).toBeLessThan(4.6)
    for (const [method, percent] of methodShares) {
      const share = (100 * sold.filter((sale) => sale.method === method).length) / sold.length
      expect(Math.abs(share - percent)).toBeLessThan(1)
    }
  })

  test('about one refund a week: the previous sale’s amount back, on its machine and method', () => {
    const perDay = 85
    const weeks = 40
    const { sales } = sellMany({ perDay }, perDay * 7 * weeks, (i) => day('10:00') + i * 1000)
    const refunds = sales.filter((sale) => sale.amount < 0)
    expect(refunds.length).toBeGreaterThan(weeks * 0.6)
    expect(refunds.length).toBeLessThan(weeks * 1.4)
    for (const refund of refunds) {
      const index = sales.indexOf(refund)
      const refunded = sales[index - 1]
      expect(refund.refundOf).toBe(refunded?.id)
      expect(refund).toMatchObject({
        amount: -(refunded?.amount ?? 0),
        machine: refunded?.machine,
        method: refunded?.method,
      })
    }
  })
})

describe('what the simulated store’s heartbeat says', () => {
  const washerOnly: DemoMachine[] = [{ machine: 'W1', kind: 'washer', weight: 1, prices: [4000, 4500, 5000] }]
  const state = (report: { machines: { machine: string; state: string }[] }, name: string) =>
    report.machines.find((m) => m.machine === name)?.state

  test('a machine runs for its cycle after its sale, shortened by the speed, then is idle', () => {
    for (const speed of [1, 10]) {
      const store = simulatedStore({ perDay: 85, machines: washerOnly, speed }, seeded(1))
      const sold = day('10:00')
      expect(state(store.report(sold - minute), 'W1')).toBe('idle')
      const [sale] = store.sell(sold).filter((s) => s.amount >= 0)
      expect(sale?.machine).toBe('W1')
      const cycle = (cycleMinutes.washer * minute) / speed
      expect(store.report(sold + cycle - 1000).machines).toEqual([
        { machine: 'W1', kind: 'washer', state: 'running' },
      ])
      expect(state(store.report(sold + cycle + 1000), 'W1')).toBe('idle')
    }
  })

  test('the machine out of order sells nothing in its window and reports its error; before and after, it is well', () => {
    const rhythm: Rhythm = {
      perDay: 200,
      outOfOrder: { machine: 'W3', window: [13 * 60, 18 * 60], code: 'E21' },
    }
    const afternoon = sellMany(rhythm, 5000, (i) => day('13:00') + (i % 300) * minute).sales
    expect(afternoon.some((sale) => sale.machine === 'W3')).toBe(false)
    expect(afternoon.some((sale) => sale.machine === 'W2')).toBe(true)
    const morning = sellMany(rhythm, 5000, (i) => day('08:00') + (i % 300) * minute).sales
    expect(morning.some((sale) => sale.machine === 'W3')).toBe(true)
    const store = simulatedStore(rhythm, seeded(3))
    expect(store.report(day('15:00')).machines.find((m) => m.machine === 'W3')).toEqual({
      machine: 'W3',
      kind: 'washer',
      state: 'error',
      code: 'E21',
    })
    expect(state(store.report(day('12:59')), 'W3')).toBe('idle')
    expect(state(store.report(day('18:00')), 'W3')).toBe('idle')
    expect(inWindow([13 * 60, 18 * 60], day('17:59'))).toBe(true)
  })

  test('the terminal is down in its window: card, phone and point payments fail, counted once, and are paid in cash', () => {
    const rhythm: Rhythm = { perDay: 85, terminalDown: [15 * 60 + 10, 15 * 60 + 30] }
    const store = simulatedStore(rhythm, seeded(5))
    expect(store.report(day('15:09'))).toMatchObject({ terminal: 'ok' })
    const down: Sale[] = []
    for (let i = 0; i < 200; i++) down.push(...store.sell(day('15:10') + i * 5000))
    expect(
      down.filter((sale) => sale.amount >= 0).every((s) => s.method === 'cash' || s.method === 'coin'),
    ).toBe(true)
    const report = store.report(day('15:29'))
    expect(report.terminal).toBe('down')
    // About 80 % of 200 customers tried a card, phone or points once or twice.
    expect(report.failedPayments).toBeGreaterThan(150)
    expect(report.failedPayments).toBeLessThan(400)
    // Counted since the last report only.
    expect(store.report(day('15:29')).failedPayments).toBeUndefined()
    expect(store.report(day('15:30')).terminal).toBe('ok')
    const after: Sale[] = []
    for (let i = 0; i < 200; i++) after.push(...store.sell(day('15:30') + i * 1000))
    expect(after.some((sale) => sale.method === 'card')).toBe(true)
    expect(store.report(day('16:00')).failedPayments).toBeUndefined()
  })
})
