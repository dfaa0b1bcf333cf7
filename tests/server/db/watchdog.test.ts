// The embedded database's watchdog (server/db/watchdog.ts): PostgreSQL's statement_timeout does not fire
// inside PGlite, so a statement that never returns blocks the server's only thread; the watchdog, on a
// thread of its own, names the statement and ends the process, so that its supervisor restarts it.
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { describe, expect, inject, it } from 'vitest'
import { openDatabase } from '../../../server/db/client.ts'

function runChild(args: string[], timeoutMs: number) {
  return new Promise<{
    code: number | null
    signal: string | null
    stdout: string
    stderr: string
    boundReached: boolean
  }>((resolve) => {
    let boundReached = false
    const child = spawn(process.execPath, ['--import', 'tsx', 'tests/server/db/watchdog-child.ts', ...args])
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => {
      stdout += chunk
    })
    child.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    // The test's own bound: a child nothing ended is killed here (and the test fails on its signal).
    const timer = setTimeout(() => {
      boundReached = true
      child.kill('SIGTERM')
    }, timeoutMs)
    const hardTimer = setTimeout(() => child.kill('SIGKILL'), timeoutMs + 5_000)
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      clearTimeout(hardTimer)
      resolve({ code, signal, stdout, stderr, boundReached })
    })
  })
}

describe('the embedded database', () => {
  it("does not apply PostgreSQL's statement_timeout (it cannot interrupt a statement)", async () => {
    const database = await openDatabase({
      pgliteDir: null,
      loadDataDir: new Blob([readFileSync(inject('pgliteTemplate'))]),
    })
    try {
      const pglite = database.pglite
      if (!pglite) throw new Error('expected PGlite')
      await pglite.exec(`set statement_timeout = '100ms'`)
      expect((await pglite.query<{ statement_timeout: string }>('show statement_timeout')).rows).toEqual([
        { statement_timeout: '100ms' },
      ])
      const started = performance.now()
      const result = await pglite.query<{ n: number }>(
        'select count(*)::int as n from generate_series(1, 1000) a, generate_series(1, 1000) b',
      )
      const ms = performance.now() - started
      // PostgreSQL would have cancelled it at 100 ms ("canceling statement due to statement timeout").
      expect(result.rows).toEqual([{ n: 1_000_000 }])
      expect(ms).toBeGreaterThan(300)
    } finally {
      await database.close()
    }
  })

  it('with a watchdog, a statement that does not answer ends the process, named', {
    timeout: 120_000,
  }, async () => {
    const result = await runChild([inject('pgliteTemplate'), '2000', 'hang'], 40_000)
    expect(result.stdout).toContain('opened')
    expect(result.stdout).not.toContain('answered')
    // Ended by the watchdog (SIGKILL), not by this test's bound (SIGTERM, which the hung process
    // ignores, then SIGKILL).
    expect(result.boundReached, result.stderr).toBe(false)
    expect(result.signal, result.stderr).toBe('SIGKILL')
    expect(result.stderr).toContain('Embedded database stalled: a statement has not answered for')
    expect(result.stderr).toContain(
      'Statement: select count(*) as endless from generate_series(1, 100000) a, generate_series(1, 100000) b',
    )
  })

  it('with a watchdog, short statements, idle spells and a clean close go on', {
    timeout: 120_000,
  }, async () => {
    const result = await runChild([inject('pgliteTemplate'), '1000', 'normal'], 90_000)
    expect(result.stderr).not.toContain('stalled')
    expect(result.boundReached).toBe(false)
    expect(result.stdout).toContain('closed')
    expect(result.code).toBe(0)
  })
})
