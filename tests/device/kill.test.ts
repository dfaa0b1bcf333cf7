// The reference device killed with SIGKILL at random moments and started again, against a server that
// refuses connections, never answers, cuts connections after storing, and answers 503, 429 and 409:
// every sale fed arrives exactly once. The fake server keeps every sale of every new batch (it does not
// drop repeated ids as the real server does), so a sale sent again under another key would show here.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, expect, test } from 'vitest'
import { feedThroughKills, runDevice } from './child.ts'
import { startFakeServer } from './fake-server.ts'

const dir = mkdtempSync(path.join(tmpdir(), 'device-kill-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test('killed at random moments and restarted, it loses nothing and sends nothing twice', async () => {
  const server = await startFakeServer()
  try {
    const pairing = runDevice(['pair', server.addPairingCode(4), '--dir', dir, '--server', server.url])
    expect(await pairing.exited).toBe(0)
    server.misbehave({ chaos: 0.3, outages: { everyMs: 700, downMs: 150 } })
    const start = Date.parse('2026-11-25T00:00:00.000Z')
    const sales = Array.from({ length: 600 }, (_, n) => ({
      id: `sale-${n}`,
      createdAt: new Date(start + n * 60_000).toISOString(),
      amount: 3000 + (n % 6) * 500,
    }))
    const runs = await feedThroughKills(dir, server.url, sales, { kills: 6, maxRunMs: 1500 })
    expect(runs).toHaveLength(7)
    // Killed while it worked: runs took sales before the kill.
    expect(runs.slice(0, -1).filter((run) => run.taken > 0).length).toBeGreaterThanOrEqual(2)

    const counts = new Map<string, number>()
    for (const sale of server.stored) counts.set(sale.id, (counts.get(sale.id) ?? 0) + 1)
    expect([...counts.values()].filter((n) => n > 1)).toEqual([])
    expect([...counts.keys()].sort()).toEqual(sales.map((sale) => sale.id).sort())
    // As fed, amounts and times untouched.
    const byId = new Map(server.stored.map((sale) => [sale.id, sale]))
    for (const sale of sales) expect(byId.get(sale.id)).toMatchObject(sale)
    // The misbehaviour happened.
    expect(server.refusals()).toBeGreaterThan(0)
    expect((server.statuses[503] ?? 0) + (server.statuses[429] ?? 0)).toBeGreaterThan(0)
    expect(server.heartbeats.length).toBeGreaterThan(0)
  } finally {
    await server.close()
  }
}, 120_000)
