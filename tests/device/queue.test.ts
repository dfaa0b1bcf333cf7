import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { type Batch, batchBody, type Sale } from '../../device/batch.ts'
import { parseSaleLine } from '../../device/input.ts'
import { DurableQueue } from '../../device/queue.ts'
import { amountOfCycle, isSilent, nextSaleAt, rateAt } from '../../device/simulate.ts'

const dirs: string[] = []
const freshDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'device-queue-'))
  dirs.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const sale = (n: number, amount = 4000): Sale => ({
  id: `s${n}`,
  createdAt: '2026-11-25T09:00:00.000Z',
  amount,
})
const stamp = () => '2026-11-25T09:00:01.000Z'

describe('the durable queue', () => {
  test('keeps what it took across a reopen, oldest first, and is owner-only', () => {
    const dir = freshDir()
    const queue = DurableQueue.open(dir)
    expect(queue.add([sale(1), sale(2), sale(3)]).map((s) => s.id)).toEqual(['s1', 's2', 's3'])
    queue.close()
    const again = DurableQueue.open(dir)
    expect(again.length).toBe(3)
    const batch = again.nextBatch()
    expect(batch?.ids).toEqual(['s1', 's2', 's3'])
    expect(JSON.parse(batchBody(batch as Batch, stamp()))).toEqual({
      sales: [sale(1), sale(2), sale(3)],
      sentAt: stamp(),
    })
    expect(statSync(path.join(dir, 'queue.jsonl')).mode & 0o777).toBe(0o600)
    expect(statSync(dir).mode & 0o777).toBe(0o700)
  })

  test('a batch in flight survives a restart with the same key and the same body', () => {
    const dir = freshDir()
    const queue = DurableQueue.open(dir)
    queue.add([sale(1), sale(2)])
    const first = queue.nextBatch()
    queue.add([sale(3)])
    queue.close()
    const again = DurableQueue.open(dir)
    const retried = again.nextBatch()
    expect(retried).toEqual(first)
    again.ack(retried?.key ?? '')
    expect(again.length).toBe(1)
    expect(again.nextBatch()?.ids).toEqual(['s3'])
  })

  test('an acknowledged batch is never sent again, and its sales fed again are not queued', () => {
    const dir = freshDir()
    const queue = DurableQueue.open(dir)
    queue.add([sale(1), sale(2)])
    const batch = queue.nextBatch()
    queue.ack(batch?.key ?? '', [{ id: 's2', message: '금액이 맞지 않습니다.' }])
    queue.close()
    const again = DurableQueue.open(dir)
    expect(again.length).toBe(0)
    expect(again.nextBatch()).toBeUndefined()
    expect(again.add([sale(1), sale(4), sale(4)]).map((s) => s.id)).toEqual(['s4'])
    expect(readFileSync(path.join(dir, 'queue.jsonl'), 'utf8')).toContain('"rejected"')
  })

  test('a torn last line (a kill in the middle of a write) is cut off, and writing goes on after it', () => {
    const dir = freshDir()
    const queue = DurableQueue.open(dir)
    queue.add([sale(1)])
    queue.close()
    appendFileSync(path.join(dir, 'queue.jsonl'), '{"sale":{"id":"s2","crea')
    const again = DurableQueue.open(dir)
    expect(again.length).toBe(1)
    again.add([sale(3)])
    again.close()
    const third = DurableQueue.open(dir)
    expect(third.nextBatch()?.ids).toEqual(['s1', 's3'])
  })

  test('batches hold at most 500 sales and 64 KiB', () => {
    const dir = freshDir()
    const queue = DurableQueue.open(dir)
    queue.add(Array.from({ length: 1200 }, (_, n) => sale(n)))
    const first = queue.nextBatch()
    expect(first?.ids).toHaveLength(500)
    queue.ack(first?.key ?? '')
    const long = (n: number): Sale => ({ ...sale(n), id: `${'x'.repeat(120)}${n}` })
    queue.add(Array.from({ length: 500 }, (_, n) => long(n)))
    let batch = queue.nextBatch()
    while (batch) {
      expect(Buffer.byteLength(batchBody(batch, stamp()))).toBeLessThanOrEqual(64 * 1024)
      expect(batch.ids.length).toBeLessThanOrEqual(500)
      queue.ack(batch.key)
      batch = queue.nextBatch()
    }
    expect(queue.length).toBe(0)
  })

  test('compaction keeps the queued sales, the batch in flight and the delivered ids, and shrinks the file', () => {
    const dir = freshDir()
    // Nothing acknowledged kept here (the test below keeps it): only the delivered ids remain of those.
    const queue = DurableQueue.open(dir, { compactBytes: 4096, keptBytes: 0 })
    for (let n = 0; n < 100; n++) {
      queue.add([sale(n)])
      const batch = queue.nextBatch()
      queue.ack(batch?.key ?? '')
    }
    queue.add([sale(100), sale(101)])
    const flight = queue.nextBatch()
    queue.add([sale(102)])
    queue.compact()
    expect(statSync(path.join(dir, 'queue.jsonl')).size).toBeLessThan(4096)
    queue.close()
    const again = DurableQueue.open(dir)
    expect(again.inFlight).toEqual(flight)
    expect(again.length).toBe(3)
    expect(again.add([sale(5)])).toEqual([])
  })
})

describe('acknowledged sales', () => {
  const day = 24 * 60 * 60 * 1000
  /** A queue whose clock the test moves. */
  const clocked = (dir: string, options: { keptBytes?: number; compactBytes?: number } = {}) => {
    const clock = { now: Date.parse('2026-11-25T09:00:00.000Z') }
    const open = () => DurableQueue.open(dir, { ...options, now: () => clock.now })
    return { clock, open }
  }
  const deliver = (queue: DurableQueue, sales: Sale[], rejected: string[] = []) => {
    queue.add(sales)
    const batch = queue.nextBatch()
    queue.ack(
      batch?.key ?? '',
      rejected.map((id) => ({ id, message: '거절' })),
    )
  }

  test('are kept 7 days, except the rejected, through a reopen and a compaction; older ones are dropped', () => {
    const dir = freshDir()
    const { clock, open } = clocked(dir)
    let queue = open()
    deliver(queue, [sale(1), sale(2), sale(3)], ['s2'])
    expect(queue.length).toBe(0)
    expect(queue.kept.map((s) => s.id)).toEqual(['s1', 's3'])
    clock.now += 3 * day
    deliver(queue, [sale(4)])
    queue.close()
    queue = open()
    expect(queue.kept).toEqual([sale(1), sale(3), sale(4)])
    queue.compact()
    queue.close()
    queue = open()
    expect(queue.kept).toEqual([sale(1), sale(3), sale(4)])
    // A sale fed again is still refused (delivered), kept or not.
    expect(queue.add([sale(1)])).toEqual([])
    // Past 7 days since their acknowledgement the first ones go, on the next acknowledgement or open.
    clock.now += 4 * day + 1
    queue.close()
    queue = open()
    expect(queue.kept.map((s) => s.id)).toEqual(['s4'])
    clock.now += 3 * day
    deliver(queue, [sale(5)])
    expect(queue.kept.map((s) => s.id)).toEqual(['s5'])
    queue.close()
  })

  test('are kept within their bytes, the oldest dropped first, and the journal stays bounded', () => {
    const dir = freshDir()
    const bytes = Buffer.byteLength(JSON.stringify(sale(100)))
    const { open } = clocked(dir, { keptBytes: 50 * bytes, compactBytes: 8 * 1024 })
    const queue = open()
    for (let n = 100; n < 400; n += 10)
      deliver(
        queue,
        Array.from({ length: 10 }, (_, i) => sale(n + i)),
      )
    // The newest 50 of the 300 delivered.
    expect(queue.kept.map((s) => s.id)).toEqual(Array.from({ length: 50 }, (_, i) => `s${350 + i}`))
    // Compacted on the way: the journal holds about the kept sales and the delivered ids, not 300 sales twice.
    expect(statSync(path.join(dir, 'queue.jsonl')).size).toBeLessThan(2 * 8 * 1024)
    queue.close()
    expect(open().kept).toHaveLength(50)
  })

  test('go back into the queue when the server tells another generation, once, durably', () => {
    const dir = freshDir()
    const { open } = clocked(dir)
    let queue = open()
    deliver(queue, [sale(1), sale(2)])
    // The first generation told is noted; the same again changes nothing.
    expect(queue.observeGeneration('g1')).toBe(0)
    expect(queue.observeGeneration('g1')).toBe(0)
    deliver(queue, [sale(3)])
    queue.add([sale(4)])
    expect(queue.length).toBe(1)
    // Another generation: the 3 kept go back, with the one still queued; a reopen keeps that.
    expect(queue.observeGeneration('g2')).toBe(3)
    expect(queue.length).toBe(4)
    expect(queue.kept).toEqual([])
    queue.close()
    queue = open()
    expect(queue.generation).toBe('g2')
    expect(queue.length).toBe(4)
    expect(queue.observeGeneration('g2')).toBe(0)
    const batch = queue.nextBatch()
    expect(batch?.ids.sort()).toEqual(['s1', 's2', 's3', 's4'])
    queue.ack(batch?.key ?? '')
    expect(queue.kept).toHaveLength(4)
    queue.close()
  })
})

describe('a line of input', () => {
  const now = () => new Date('2026-11-25T09:00:00.000Z')
  test('a bare amount gets an id and the time', () => {
    const parsed = parseSaleLine(' -3000 ', now)
    expect(parsed).toEqual({
      sale: { id: expect.any(String), createdAt: '2026-11-25T09:00:00.000Z', amount: -3000 },
    })
  })
  test('a JSON sale keeps its id and time', () => {
    expect(parseSaleLine('{"id":"r-1","createdAt":"2026-11-25T18:00:00+09:00","amount":4000}', now)).toEqual({
      sale: { id: 'r-1', createdAt: '2026-11-25T18:00:00+09:00', amount: 4000 },
    })
  })
  test.each([
    ['4000.5', 'amount'],
    ['{"amount":"4000"}', 'amount'],
    ['{"amount":1e400}', 'amount'],
    ['{"amount":4000,"createdAt":"2026-11-25T18:00:00"}', 'offset'],
    ['{"amount":4000,"id":""}', 'id'],
    ['[4000]', 'object'],
    ['four thousand', 'JSON'],
  ])('%s is refused', (line, why) => {
    const parsed = parseSaleLine(line, now)
    expect('error' in parsed && parsed.error).toContain(why)
  })
  test('an empty line is nothing', () => expect(parseSaleLine('  ')).toEqual({ empty: true }))
})

describe('the simulated rhythm', () => {
  const at = (iso: string) => Date.parse(iso)
  test('busier after work than at night, busier on Saturday, nothing in the silent hours', () => {
    const rhythm = { perDay: 200 }
    // Wednesday 2026-11-25, Korea time.
    expect(rateAt(rhythm, at('2026-11-25T19:30:00+09:00'))).toBeGreaterThan(
      5 * rateAt(rhythm, at('2026-11-25T03:30:00+09:00')),
    )
    expect(rateAt(rhythm, at('2026-11-28T19:30:00+09:00'))).toBeGreaterThan(
      rateAt(rhythm, at('2026-11-25T19:30:00+09:00')),
    )
    const silent = { perDay: 200, silent: [14, 17] as [number, number] }
    expect(isSilent(silent, at('2026-11-25T15:00:00+09:00'))).toBe(true)
    expect(isSilent(silent, at('2026-11-25T17:00:00+09:00'))).toBe(false)
    expect(rateAt(silent, at('2026-11-25T14:10:00+09:00'))).toBe(0)
  })

  test('a day of arrivals is about the day`s usual count, and none falls in the silent hours', () => {
    const rhythm = { perDay: 200, silent: [14, 17] as [number, number] }
    let t = at('2026-11-25T00:00:00+09:00')
    const end = at('2026-11-26T00:00:00+09:00')
    let count = 0
    for (;;) {
      t = nextSaleAt(rhythm, t)
      if (t >= end) break
      count++
      expect(isSilent(rhythm, t)).toBe(false)
    }
    // 200 × 0.92 (Wednesday) × 1.0 (November) = 184, less the 24 of 171 weights the silent hours hold.
    expect(count).toBeGreaterThan(110)
    expect(count).toBeLessThan(210)
    expect([3000, 3500, 4000, 4500, 5000, 6000, 7000, 8000]).toContain(amountOfCycle())
  })
})
