// npm run device -- <command>: the reference device's command line (docs/operations.md, "Devices").
//
//   pair <code> [--server URL] [--dir DIR]   pair with a code from the owner's devices screen
//   run [--dir DIR] [options]                deliver sales read from standard input (and --simulate's)
//
// Plain http to another machine is refused (pair and run) unless --allow-http says so, then warned
// about: the pairing code and the device's key would travel readable (docs/product.md decision 168).
//   status [--dir DIR]                       the pairing and what the queue holds
//
// `run` prints `taken <id>` on standard output for each sale once it is on disk (synced), and what it
// does on standard error. It exits 2 when the server refuses the device (a revoked key, say).
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { parseArgs } from 'node:util'
import { heartbeatMs, maxSalesPerBatch } from '../domain/devices.ts'
import type { Sale } from './batch.ts'
import { Device, PairingError, pair } from './client.ts'
import { isPlainHttpElsewhere, plainHttpWarning } from './http.ts'
import { readIdentity } from './identity.ts'
import { parseSaleLine } from './input.ts'
import { simulate } from './simulate.ts'

const usage = `usage:
  npm run device -- pair <code> [--server URL] [--dir DIR] [--allow-http]
  npm run device -- run [--dir DIR] [--server URL] [--allow-http] [--simulate [--per-day N] [--silent FROM-TO] [--speed N]]
                        [--exit-when-empty] [--heartbeat-s N] [--timeout-s N] [--retry-base-ms N] [--retry-max-ms N]
                        [--batch N (most sales a batch, ≤ 500)] [--compact-kb N] [--machines FILE]
  npm run device -- status [--dir DIR]

Standard input: one sale a line, {"id":"…","createdAt":"2026-11-25T09:15:00+09:00","amount":4000} or a
bare amount (4000; -4000 is a refund); a missing id is a new UUID, a missing time is now. A sale may
also name its "machine" (1–32 characters), "method" (card, cash, coin, mobile, point, other) and, for a
refund, "refundOf" (the id of the sale it refunds): {"id":"r1","amount":-4000,"refundOf":"s1"}.
--machines FILE: a JSON file the store's controller rewrites, read at each heartbeat and sent with it:
{"machines":[{"machine":"W1","kind":"washer","state":"running"},{"machine":"W2","state":"error","code":"E21"}],
"terminal":"ok"} (or just the machines' array); no file, no such fields.
--simulate: sales at a store's usual rhythm, each naming its machine and method (a refund about once a
week); without --machines, each heartbeat says the simulated machines' states and terminal.
--dir defaults to $DEVICE_DIR or ./device-data; --server to $DEVICE_SERVER or http://localhost:3000.
--allow-http: talk to plain http on another machine (its key then travels readable); refused otherwise.`

const stamp = () => new Date().toISOString()
const report = (line: string) => process.stderr.write(`${stamp()} ${line}\n`)

function numberOption(value: string | undefined, name: string, fallback: number) {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!Number.isFinite(n) || n < 0) throw new UsageError(`--${name} must be a number`)
  return n
}

class UsageError extends Error {}

/**
 * The --machines file as the heartbeat's fields (docs/product.md §14): its `machines` and `terminal`, or
 * an array as the machines; nothing while it is absent; an unreadable one is reported and sends nothing.
 */
function machinesFile(file: string) {
  return (): Record<string, unknown> | undefined => {
    let text: string
    try {
      text = readFileSync(file, 'utf8')
    } catch {
      return undefined
    }
    try {
      const value: unknown = JSON.parse(text)
      if (Array.isArray(value)) return { machines: value }
      if (value && typeof value === 'object') {
        const { machines, terminal } = value as Record<string, unknown>
        return {
          ...(machines === undefined ? {} : { machines }),
          ...(terminal === undefined ? {} : { terminal }),
        }
      }
    } catch {}
    report(`${file}: not a JSON object or array; the heartbeat says nothing of the machines`)
    return undefined
  }
}

async function main(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      dir: { type: 'string' },
      server: { type: 'string' },
      simulate: { type: 'boolean' },
      'per-day': { type: 'string' },
      silent: { type: 'string' },
      speed: { type: 'string' },
      'exit-when-empty': { type: 'boolean' },
      'heartbeat-s': { type: 'string' },
      'timeout-s': { type: 'string' },
      'retry-base-ms': { type: 'string' },
      'retry-max-ms': { type: 'string' },
      batch: { type: 'string' },
      'compact-kb': { type: 'string' },
      machines: { type: 'string' },
      'allow-http': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  const [command, ...rest] = positionals
  if (values.help || !command) {
    console.log(usage)
    return 0
  }
  const dir = values.dir ?? process.env.DEVICE_DIR ?? 'device-data'
  const server = values.server ?? process.env.DEVICE_SERVER

  if (command === 'pair') {
    const [code] = rest
    if (!code) throw new UsageError('pair needs the code shown on the devices screen')
    if (readIdentity(dir)) throw new UsageError(`${dir} already holds a paired device; use another --dir`)
    const address = server ?? 'http://localhost:3000'
    const allowHttp = values['allow-http'] === true
    if (allowHttp && isPlainHttpElsewhere(address)) report(`warning: ${plainHttpWarning(address)}`)
    const identity = await pair(dir, address, code, { allowHttp })
    console.log(
      `paired: device ${identity.deviceId} of store ${identity.storeId}; key kept in ${dir}/device.json`,
    )
    return 0
  }

  if (command === 'status') {
    const identity = readIdentity(dir)
    if (!identity) {
      console.log(`not paired (${dir})`)
      return 1
    }
    const device = new Device(dir)
    console.log(
      `device ${identity.deviceId} of store ${identity.storeId} at ${identity.server}, paired ${identity.pairedAt}; ` +
        `${device.queue.length} sale(s) queued${device.queue.inFlight ? ', a batch in flight' : ''}; ` +
        `${device.queue.kept.length} acknowledged sale(s) kept to send again if the server loses them` +
        (device.queue.generation ? ` (its database's generation ${device.queue.generation})` : ''),
    )
    device.close()
    return 0
  }

  if (command !== 'run') throw new UsageError(`unknown command ${command}`)
  const address = server ?? readIdentity(dir)?.server
  // Warned about, not refused: a device paired over plain http before this rule has sent its key already,
  // and refusing now would only stop its sales after an update (pairing anew is refused without the flag).
  if (address && isPlainHttpElsewhere(address)) report(`warning: ${plainHttpWarning(address)}`)
  let simulation: ReturnType<typeof simulate> | undefined
  const device = new Device(dir, {
    ...(server ? { server } : {}),
    log: report,
    heartbeatMs: numberOption(values['heartbeat-s'], 'heartbeat-s', heartbeatMs / 1000) * 1000,
    timeoutMs: numberOption(values['timeout-s'], 'timeout-s', 30) * 1000,
    batchSales: numberOption(values.batch, 'batch', maxSalesPerBatch),
    compactBytes: numberOption(values['compact-kb'], 'compact-kb', 1024) * 1024,
    // The --machines file, else what the simulated store says (its machines, its terminal).
    storeReport: values.machines ? machinesFile(values.machines) : () => simulation?.report(),
    retry: {
      baseMs: numberOption(values['retry-base-ms'], 'retry-base-ms', 1000),
      maxMs: numberOption(values['retry-max-ms'], 'retry-max-ms', 60_000),
    },
  })
  const taken = (sales: Sale[]) => {
    const fresh = new Set(device.take(sales).map((sale) => sale.id))
    for (const sale of sales)
      process.stdout.write(`taken ${sale.id}${fresh.has(sale.id) ? '' : ' (already)'}\n`)
  }

  if (values.simulate) {
    const silent = values.silent?.match(/^(\d{1,2})-(\d{1,2})$/)
    if (values.silent && !silent) throw new UsageError('--silent is FROM-TO, hours in Korea, e.g. 14-17')
    simulation = simulate(
      {
        perDay: numberOption(values['per-day'], 'per-day', 85),
        speed: numberOption(values.speed, 'speed', 1),
        ...(silent ? { silent: [Number(silent[1]), Number(silent[2])] as [number, number] } : {}),
      },
      taken,
    )
  }

  // Standard input: lines that arrive together are synced together, then reported taken.
  let buffered: Sale[] = []
  let flushing = false
  const flush = () => {
    flushing = false
    const sales = buffered
    buffered = []
    if (sales.length > 0) taken(sales)
  }
  let lineNumber = 0
  const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY })
  lines.on('line', (line) => {
    lineNumber++
    const parsed = parseSaleLine(line)
    if ('error' in parsed) report(`line ${lineNumber} refused: ${parsed.error}`)
    if (!('sale' in parsed)) return
    buffered.push(parsed.sale)
    if (!flushing) {
      flushing = true
      setImmediate(flush)
    }
  })
  lines.on('close', () => {
    flush()
    if (values['exit-when-empty'])
      void device.idle().then(() => {
        simulation?.stop()
        device.stop()
      })
  })

  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    process.on(signal, () => {
      simulation?.stop()
      device.stop()
    })

  report(`running: ${device.queue.length} sale(s) queued`)
  const stopped = await device.start()
  simulation?.stop()
  lines.close()
  device.close()
  if (stopped.refused) {
    report(`stopped: the server refused the device (${stopped.refused.status} ${stopped.refused.message})`)
    return 2
  }
  return 0
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) console.error(`${error.message}\n\n${usage}`)
    else if (error instanceof PairingError) console.error(error.message)
    else console.error(error)
    process.exit(1)
  },
)
