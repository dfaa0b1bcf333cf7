// A process that takes the embedded database's lock at agreed instants, for lock.test.ts. It says
// `ready` once loaded; then for each line of standard input (an instant, ms since the epoch) it spins
// until then, locks, says `locked` or `refused …`, holds the lock for `holdMs`, lets it go and says
// `done`. It ends with its input.
import { createInterface } from 'node:readline'
import { lockDirectory } from '../../../server/db/lock.ts'

const [pgliteDir = '', holdMs = '300'] = process.argv.slice(2)
process.stdout.write('ready\n')
for await (const line of createInterface({ input: process.stdin })) {
  const at = Number(line)
  while (Date.now() < at) {
    // Spinning, so that every contender tries within the same millisecond.
  }
  let unlock: (() => void) | null = null
  try {
    unlock = lockDirectory(pgliteDir)
    process.stdout.write('locked\n')
  } catch (error) {
    process.stdout.write(`refused ${(error as Error).message.split('\n')[0]}\n`)
  }
  await new Promise((resolve) => setTimeout(resolve, Number(holdMs)))
  unlock?.()
  process.stdout.write('done\n')
}
