// The reference device as a child process (`node --import tsx device/main.ts`), fed sales on its
// standard input, killed with SIGKILL at random moments and started again, until every sale fed is
// taken and delivered. Used against the misbehaving fake server and against the real one.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'

export interface FedSale {
  id: string
  createdAt: string
  amount: number
  machine?: string
  method?: string
  refundOf?: string
}

const runArgs = [
  '--heartbeat-s',
  '0.5',
  '--timeout-s',
  '1',
  '--retry-base-ms',
  '20',
  '--retry-max-ms',
  '400',
  '--batch',
  '25',
  '--compact-kb',
  '8',
]

export function runDevice(args: string[]) {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    ['--import', 'tsx', 'device/main.ts', ...args],
    { stdio: 'pipe' },
  )
  const taken: string[] = []
  let errors = ''
  createInterface({ input: child.stdout }).on('line', (line) => {
    const id = line.match(/^taken (\S+)/)?.[1]
    if (id) taken.push(id)
  })
  child.stderr.on('data', (chunk: Buffer) => {
    errors += chunk.toString()
  })
  // A write to a process just killed fails with EPIPE: the sale is fed again to the next one.
  child.stdin.on('error', () => {})
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  /** Resolves when the device has opened its queue and started (its `running:` line). */
  const running = new Promise<void>((resolve) => {
    const look = () => {
      if (errors.includes(' running: ')) {
        child.stderr.off('data', look)
        resolve()
      }
    }
    child.stderr.on('data', look)
    void exited.then(() => resolve())
  })
  return { child, taken, errors: () => errors, exited, running }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Feeds `sales` to the device in `dir`, killing it (SIGKILL) `kills` times at random moments, each
 * restart fed again from the first sale it had not said it took. The last run is fed the rest, its
 * input closed, and it exits once everything is delivered. Returns how many sales each run took.
 */
export async function feedThroughKills(
  dir: string,
  server: string,
  sales: FedSale[],
  { kills, maxRunMs }: { kills: number; maxRunMs: number },
) {
  let next = 0
  const runs: { taken: number }[] = []
  const args = ['run', '--dir', dir, '--server', server, ...runArgs]
  for (let run = 0; run <= kills; run++) {
    const last = run === kills
    const device = runDevice(last ? [...args, '--exit-when-empty'] : args)
    // Killed at a random moment once it runs (starting it takes seconds here, with tsx).
    await device.running
    const killAt = Date.now() + 150 + Math.random() * maxRunMs
    // Sales in small groups, a few milliseconds apart, while the device delivers what it holds.
    let fed = next
    while (fed < sales.length && (last || Date.now() < killAt)) {
      const group = sales.slice(fed, fed + 1 + Math.floor(Math.random() * 4))
      device.child.stdin.write(group.map((sale) => `${JSON.stringify(sale)}\n`).join(''))
      fed += group.length
      await pause(10 + Math.random() * 30)
    }
    if (last) {
      device.child.stdin.end()
      const code = await device.exited
      if (code !== 0) throw new Error(`the device exited with ${code}: ${device.errors()}`)
      runs.push({ taken: device.taken.length })
      return runs
    }
    await pause(Math.max(0, killAt - Date.now()))
    device.child.kill('SIGKILL')
    await device.exited
    runs.push({ taken: device.taken.length })
    // Taken in order: the first sale not reported taken is where the next run starts feeding.
    const reported = new Set(device.taken)
    while (next < sales.length && reported.has(sales[next]?.id ?? '')) next++
  }
  return runs
}
