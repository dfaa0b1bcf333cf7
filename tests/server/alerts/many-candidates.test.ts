// Many alert candidates at once (a large deployment with hundreds of quiet or offline stores, or an
// owner pairing devices that never speak): the rules' queries must answer every minute. The rules ran
// in a child process bounded by a timeout (many-candidates-child.ts): a query hung inside PGlite blocks
// its thread, so only another process can notice it.
import { spawn } from 'node:child_process'
import { describe, expect, inject, it } from 'vitest'
import { createPostgresDatabase } from '../../../scripts/postgres-database.ts'

function runChild(target: string, count: number, timeoutMs: number) {
  return new Promise<{ code: number | null; output: string; timedOut: boolean }>((resolve) => {
    const child = spawn(process.execPath, [
      '--import',
      'tsx',
      'tests/server/alerts/many-candidates-child.ts',
      target,
      String(count),
    ])
    let output = ''
    let timedOut = false
    child.stdout.on('data', (chunk) => {
      output += chunk
    })
    child.stderr.on('data', (chunk) => {
      output += chunk
    })
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, timeoutMs)
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, output, timedOut })
    })
  })
}

describe('the alert rules with 300 candidates', () => {
  it('evaluate twice, and every store has its alert recorded or capped', { timeout: 150_000 }, async () => {
    const postgres =
      process.env.TEST_DB === 'postgres'
        ? await createPostgresDatabase(
            process.env.DATABASE_URL ?? '',
            'laundry_test',
            inject('postgresTemplate'),
          )
        : null
    try {
      const result = await runChild(postgres?.url ?? inject('pgliteTemplate'), 300, 120_000)
      expect(result.timedOut, result.output).toBe(false)
      expect(result.code, result.output).toBe(0)
      // The caps: 3 a store and 6 a day in all, so 6 sent and the rest capped, and nothing more the
      // second time (recorded or over the caps still).
      expect(result.output).toContain('evaluated 1: sent 6 capped 294 pushes 6')
      expect(result.output).toContain('evaluated 2: sent 0 capped 294 pushes 6')
    } finally {
      await postgres?.drop()
    }
  })
})
