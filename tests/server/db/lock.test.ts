import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { openDatabase } from '../../../server/db/client.ts'
import { DatabaseInUseError, LOCK_HEARTBEAT_MS, LOCK_STALE_AFTER_MS } from '../../../server/db/lock.ts'

// The embedded database's lock file names its owner by pid, start time and boot, so a lock left by a
// crash is taken over even when the new process has the dead one's pid (PID 1 in a container). A lock
// from another PID namespace (another container on the shared volume) is judged by its heartbeat instead.
const dir = mkdtempSync(path.join(tmpdir(), 'laundry-lock-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const pgliteDir = path.join(dir, 'pglite')
const lockFile = `${pgliteDir}.lock`
const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
const ns = readlinkSync('/proc/self/ns/pid')
const startTime = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
}

async function opens() {
  const database = await openDatabase({ pgliteDir })
  await database.close()
}

describe('the lock of the embedded database', () => {
  it('is written whole, naming this process, and let go on close', async () => {
    const database = await openDatabase({
      pgliteDir,
      loadDataDir: new Blob([readFileSync(inject('pgliteTemplate'))]),
    })
    try {
      expect(JSON.parse(readFileSync(lockFile, 'utf8'))).toEqual({
        pid: process.pid,
        start: startTime(process.pid),
        boot: bootId,
        ns,
      })
      await expect(openDatabase({ pgliteDir })).rejects.toThrow(DatabaseInUseError)
    } finally {
      await database.close()
    }
  }, 60_000)

  it('left by a process that had our pid (a restarted container) is stale', async () => {
    writeFileSync(lockFile, JSON.stringify({ pid: process.pid, start: '1', boot: bootId }))
    await opens()
    // An older version's lock, the pid alone: naming this process, which does not hold it.
    writeFileSync(lockFile, String(process.pid))
    await opens()
  }, 60_000)

  it('left before the machine restarted is stale, even if its pid runs now', async () => {
    writeFileSync(lockFile, JSON.stringify({ pid: 1, start: startTime(1), boot: 'another-boot' }))
    await opens()
  }, 60_000)

  it('held by another live process is respected', async () => {
    const other = spawn('sleep', ['60'])
    try {
      const pid = other.pid as number
      await new Promise((resolve) => other.on('spawn', resolve))
      writeFileSync(lockFile, JSON.stringify({ pid, start: startTime(pid), boot: bootId }))
      await expect(openDatabase({ pgliteDir })).rejects.toThrow(`in use by process ${pid}`)
      // An older version's lock, the pid alone, of a live process.
      writeFileSync(lockFile, String(pid))
      await expect(openDatabase({ pgliteDir })).rejects.toThrow(`in use by process ${pid}`)
      // The same pid started at another time is another process: the lock is stale.
      writeFileSync(lockFile, JSON.stringify({ pid, start: '1', boot: bootId }))
      await opens()
    } finally {
      other.kill()
    }
  }, 60_000)

  it('held by PID 1 of another PID namespace (another container) is respected while its heartbeat is fresh', async () => {
    // PID 1 here is a live process started at another time: judged by pid, the lock would look stale.
    const theirs = JSON.stringify({ pid: 1, start: '2', boot: bootId, ns: 'pid:[1]' })
    writeFileSync(lockFile, theirs)
    // Its holder refreshes the lock while we wait for it to go stale: we give up, the lock untouched.
    const heartbeat = setInterval(() => utimesSync(lockFile, new Date(), new Date()), 200)
    try {
      await expect(openDatabase({ pgliteDir, lockWaitMs: 1_500 })).rejects.toThrow(
        'in use by process 1 of another PID namespace',
      )
    } finally {
      clearInterval(heartbeat)
    }
    expect(readFileSync(lockFile, 'utf8')).toBe(theirs)
  }, 60_000)

  it('from another PID namespace whose heartbeat stopped is taken over, also after waiting for it', async () => {
    const theirs = JSON.stringify({ pid: 1, start: '2', boot: bootId, ns: 'pid:[1]' })
    writeFileSync(lockFile, theirs)
    const old = new Date(Date.now() - LOCK_STALE_AFTER_MS - 1_000)
    utimesSync(lockFile, old, old)
    await opens()
    // The holder died 1 s before the lock goes stale: opening waits for it, then takes it over.
    writeFileSync(lockFile, theirs)
    const recent = new Date(Date.now() - LOCK_STALE_AFTER_MS + 1_000)
    utimesSync(lockFile, recent, recent)
    await opens()
  }, 60_000)

  it("is refreshed by its holder's heartbeat", async () => {
    const database = await openDatabase({ pgliteDir })
    try {
      const old = new Date(Date.now() - 60_000)
      utimesSync(lockFile, old, old)
      await new Promise((resolve) => setTimeout(resolve, LOCK_HEARTBEAT_MS + 1_000))
      expect(Date.now() - statSync(lockFile).mtimeMs).toBeLessThan(LOCK_HEARTBEAT_MS + 1_000)
    } finally {
      await database.close()
    }
  }, 60_000)

  it('left stale while another process is taking it over waits for that one; its guard left by a dead process is no obstacle', async () => {
    const stale = JSON.stringify({ pid: 999_999_999, start: '1', boot: bootId, ns })
    const digest = createHash('sha256').update(`${lockFile}\n${stale}`).digest('hex').slice(0, 16)
    const guard = `${lockFile}.takeover-${digest}`
    // A live process is taking it over (its guard is there): refused, the lock untouched.
    const other = spawn('sleep', ['60'])
    try {
      const pid = other.pid as number
      await new Promise((resolve) => other.on('spawn', resolve))
      writeFileSync(lockFile, stale)
      writeFileSync(guard, JSON.stringify({ pid, start: startTime(pid), boot: bootId, ns }))
      await expect(openDatabase({ pgliteDir })).rejects.toThrow(DatabaseInUseError)
      expect(readFileSync(lockFile, 'utf8')).toBe(stale)
    } finally {
      other.kill()
    }
    // Its maker died in the middle: the guard is removed as a stale lock would be, and the lock taken.
    writeFileSync(guard, JSON.stringify({ pid: 999_999_998, start: '1', boot: bootId, ns }))
    await opens()
    expect(readdirSync(dir).filter((name) => name.includes('.takeover-'))).toEqual([])
  }, 60_000)

  it('left by a dead process is taken over by exactly one of several processes starting at once', async () => {
    // Real processes, each trying within the same millisecond; the one that gets the lock holds it
    // until all have tried, so two that both believed they held it are both counted. Many rounds, as a
    // race shows only sometimes.
    const contenders = 3
    const rounds = 40
    const children = Array.from({ length: contenders }, () => {
      const child = spawn(process.execPath, [
        '--import',
        'tsx',
        'tests/server/db/lock-child.ts',
        pgliteDir,
        '200',
      ])
      const state = { output: '' }
      child.stdout.on('data', (chunk) => {
        state.output += chunk
      })
      child.stderr.on('data', (chunk) => {
        state.output += chunk
      })
      return { child, state }
    })
    const waitFor = async (count: (output: string) => boolean) => {
      for (let waited = 0; !children.every(({ state }) => count(state.output)); waited += 10) {
        if (waited > 60_000) throw new Error(children.map(({ state }) => state.output).join('\n---\n'))
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    }
    const lines = (output: string, word: string) => output.split('\n').filter((line) => line.startsWith(word))
    try {
      await waitFor((output) => output.includes('ready'))
      const winners: number[] = []
      for (let round = 1; round <= rounds; round++) {
        writeFileSync(lockFile, JSON.stringify({ pid: 999_999_999, start: '1', boot: bootId, ns }))
        const at = String(Date.now() + 50)
        for (const { child } of children) child.stdin.write(`${at}\n`)
        await waitFor((output) => lines(output, 'done').length === round)
        const results = children.map(
          ({ state }) => lines(state.output, 'locked').length + lines(state.output, 'refused').length,
        )
        expect(results).toEqual(Array(contenders).fill(round))
        for (const { state } of children)
          for (const refusal of lines(state.output, 'refused')) expect(refusal).toMatch(/in use by process/)
        const total = children.reduce((sum, { state }) => sum + lines(state.output, 'locked').length, 0)
        winners.push(total - winners.reduce((sum, n) => sum + n, 0))
      }
      // One holder a round, never two.
      expect(winners).toEqual(Array(rounds).fill(1))
    } finally {
      for (const { child } of children) child.stdin.end()
    }
  }, 180_000)
})

describe('the embedded database', () => {
  // Each clean close syncs the folder (client.ts), a second or more on a busy machine.
  it('can be opened by one process at a time (the server or an admin command)', async () => {
    const pgliteDir = path.join(dir, 'one-at-a-time', 'pglite')
    const loadDataDir = new Blob([readFileSync(inject('pgliteTemplate'))])
    const first = await openDatabase({ pgliteDir, loadDataDir })
    try {
      await expect(openDatabase({ pgliteDir })).rejects.toThrow(DatabaseInUseError)
    } finally {
      await first.close()
    }
    expect(existsSync(`${pgliteDir}.lock`)).toBe(false)
    // A lock left behind by a process that is gone is taken over.
    writeFileSync(`${pgliteDir}.lock`, '999999')
    const second = await openDatabase({ pgliteDir })
    await second.close()
  }, 40_000)
})
