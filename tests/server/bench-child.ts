// Runs a bench script (bench/*.ts) in a process of its own, as the memory tests need, and returns the
// JSON it prints last; fails the test with everything it printed when it exits with an error.
import { spawn } from 'node:child_process'
import { expect } from 'vitest'

/** `T` is the shape of what the script prints (bench/*.ts); the tests read it field by field. */
export async function runBenchScript<T>(
  script: string,
  args: string[],
  env: Record<string, string | undefined>,
): Promise<T> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    env: { ...process.env, ...env },
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
  return JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as T
}
