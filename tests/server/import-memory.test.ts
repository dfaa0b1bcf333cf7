import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'

// The CSV import streams: memory must not grow with the file. bench/import-memory.ts imports 300,000
// generated rows in its own process (on PostgreSQL in the postgres run) and reports its peak resident
// memory; `npm run bench` runs it with 3,000,000.
describe('importing a large CSV', () => {
  it('300,000 rows import in one go in bounded memory', async () => {
    const rows = 300_000
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/import-memory.ts', String(rows)], {
      env: {
        ...process.env,
        DATABASE_URL: process.env.TEST_DB === 'postgres' ? process.env.DATABASE_URL : '',
      },
    })
    let output = ''
    child.stdout.on('data', (chunk) => {
      output += chunk
    })
    child.stderr.on('data', (chunk) => {
      output += chunk
    })
    const code = await new Promise((resolve) => child.on('exit', resolve))
    expect(code, output).toBe(0)
    const result = JSON.parse(output.trim().split('\n').at(-1) ?? '{}')
    console.log(
      `import of ${rows} rows (${result.database}): ${result.seconds} s, resident memory ${result.rssBeforeMb} MB ` +
        `with the database open, ${result.peakRssMb} MB at the peak`,
    )
    expect(result.imported).toBe(rows)
    // Reading the whole file, as the import once did, added about 500 MB at this size.
    expect(result.peakRssMb - result.rssBeforeMb).toBeLessThan(200)
  }, 600_000)
})
