// Live changes (docs/product.md decisions 77–82): held calls of GET /api/v0/store/{id}/usage/changes, over real HTTP to the
// real app. Prints one JSON line.
//   held:  1,000 calls held on one instance (the embedded database in a temporary folder): the server
//          process's resident memory and heap before, with them held, and after their clients went away
//          (the waiters left: must be 0). The clients run in a child process of their own, so their
//          sockets are not counted against the server.
//   wake:  a device's sale posted to instance A wakes a call held on instance B, both on a new database
//          of the PostgreSQL of DATABASE_URL (skipped without it): 20 rounds, the time from sending the
//          sale to B's answer. And the same on one instance of the embedded database, for scale.
//   node --import tsx bench/live.ts
//   DATABASE_URL=postgres://… node --import tsx bench/live.ts
import { type ChildProcess, fork } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import v8 from 'node:v8'
import vm from 'node:vm'
import { createPostgresDatabase } from '../scripts/postgres-database.ts'
import { buildApp } from '../server/app.ts'
import { readConfig } from '../server/config.ts'
import { addStore, addUser, grant } from '../server/db/accounts.ts'
import { type Database, openDatabase } from '../server/db/client.ts'
import { addDevice, pairDevice } from '../server/devices/pairing.ts'
import { heldPerSignIn } from '../server/live/live.ts'

const heldCalls = 1_000
const wakeRounds = 20

const collect = (() => {
  v8.setFlagsFromString('--expose-gc')
  return vm.runInNewContext('gc') as () => void
})()

function memory() {
  collect()
  const usage = process.memoryUsage()
  return { rssMb: Math.round(usage.rss / 1e5) / 10, heapMb: Math.round(usage.heapUsed / 1e5) / 10 }
}

async function until(condition: () => boolean, ms = 60_000) {
  const end = Date.now() + ms
  while (!condition()) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const message = (child: ChildProcess, wanted: string) =>
  new Promise<void>((resolve) => {
    const listener = (got: unknown) => {
      if (got !== wanted) return
      child.off('message', listener)
      resolve()
    }
    child.on('message', listener)
  })

async function startApp(database: Database, dataDir: string) {
  const config = readConfig({
    DATA_DIR: dataDir,
    WEB_DIR: path.join(dataDir, 'no-web-app'),
    LOG_LEVEL: 'silent',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-01',
    DEVICE_REQUESTS_PER_MINUTE: '10000000',
  })
  const app = await buildApp({ config, database })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, base }
}

async function storeWithDevice(app: Awaited<ReturnType<typeof startApp>>['app'], phone = '01012345678') {
  const userId = await addUser(app.db, { phone, name: '김사장' })
  const storeId = await addStore(app.db, { name: '역삼점' })
  await grant(app.db, phone, storeId, 'owner')
  const added = await addDevice(app.db, { storeId, name: '계산대', now: new Date(), perHour: 100 })
  if (!added.ok) throw new Error('device not added')
  const paired = await pairDevice(app.db, {
    code: added.pairingCode,
    client: 'bench',
    now: new Date(),
    perHour: 100,
  })
  if (!paired.ok) throw new Error('device not paired')
  const { access } = await app.tokens.start(userId)
  // The held calls' clients: as many browsers of the owner's as a thousand calls need, since one
  // sign-in may hold only `heldPerSignIn` at once (decision 150).
  const browsers: string[] = []
  for (let i = 0; i < Math.ceil(heldCalls / heldPerSignIn); i++)
    browsers.push((await app.tokens.start(userId)).access)
  return { storeId, access, browsers, deviceKey: paired.key }
}

async function held({ app, base }: Awaited<ReturnType<typeof startApp>>, streamed = false, phone?: string) {
  const { storeId, access, browsers } = await storeWithDevice(app, phone)
  const year = new Date().getUTCFullYear()
  const url = `${base}/api/v0/store/${storeId}/usage/changes?year=${year}&after=0&wait=25`
  // One call first, so what a first call loads is not counted against the thousand.
  await fetch(url.replace('wait=25', 'wait=0'), { headers: { authorization: `Bearer ${access}` } })
  const before = memory()
  const child = fork(
    new URL(import.meta.url).pathname,
    ['clients', url, browsers.join(), streamed ? 'stream' : 'held'],
    {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    },
  )
  const sent = message(child, 'sent')
  await sent
  const heldFrom = Date.now()
  await until(() => app.live.held === heldCalls)
  const heldAfterMs = Date.now() - heldFrom
  const holding = memory()
  const aborted = message(child, 'aborted')
  child.send('abort')
  await aborted
  await until(() => app.live.held === 0, 10_000).catch(() => {})
  const left = app.live.held
  await new Promise((resolve) => setTimeout(resolve, 200))
  const after = memory()
  child.kill()
  return {
    /** Streams (Accept: text/event-stream, decision 133) or held calls. */
    streamed,
    calls: heldCalls,
    before,
    holding,
    after,
    // Against the lower of before and after: a new process's resident memory can fall after its start
    // (921 → 612 MB once, the first of these runs), which made the calls' cost negative.
    moreMb: Math.round((holding.rssMb - Math.min(before.rssMb, after.rssMb)) * 10) / 10,
    heapMoreMb: Math.round((holding.heapMb - before.heapMb) * 10) / 10,
    left,
    allHeldWithinMs: heldAfterMs,
  }
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0
}

/** `wakeRounds` sales posted to `writer`, each waking a call held on `reader`; ms from send to answer. */
async function wakes(
  writer: Awaited<ReturnType<typeof startApp>>,
  reader: Awaited<ReturnType<typeof startApp>>,
  phone?: string,
) {
  const { storeId, access, deviceKey } = await storeWithDevice(writer.app, phone)
  const year = new Date().getUTCFullYear()
  const changes = (after: number, wait: number) =>
    fetch(`${reader.base}/api/v0/store/${storeId}/usage/changes?year=${year}&after=${after}&wait=${wait}`, {
      headers: { authorization: `Bearer ${access}` },
    }).then((response) => response.json() as Promise<{ rev: number; changes: unknown[] }>)
  let { rev } = await changes(0, 0)
  const times: number[] = []
  for (let round = 0; round < wakeRounds; round++) {
    const answer = changes(rev, 25)
    await until(() => reader.app.live.held === 1)
    const sent = performance.now()
    const posted = await fetch(`${writer.base}/api/v0/device/sales`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${deviceKey}`,
        'content-type': 'application/json',
        'idempotency-key': `wake-${round}`,
      },
      body: JSON.stringify({
        sales: [{ id: `s${round}`, createdAt: new Date().toISOString(), amount: 4000 }],
      }),
    })
    if (posted.status !== 200) throw new Error(`sale: ${posted.status}`)
    const woken = await answer
    times.push(performance.now() - sent)
    if (woken.changes.length !== 1) throw new Error('expected one change')
    rev = woken.rev
    await until(() => reader.app.live.held === 0)
  }
  const round2 = (n: number) => Math.round(n * 10) / 10
  return {
    rounds: wakeRounds,
    p50Ms: round2(percentile(times, 50)),
    p95Ms: round2(percentile(times, 95)),
    maxMs: round2(Math.max(...times)),
  }
}

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'laundry-bench-live-'))
  try {
    const embedded = await startApp(await openDatabase({ pgliteDir: path.join(dataDir, 'pglite') }), dataDir)
    let heldFigures: Awaited<ReturnType<typeof held>>
    let streamFigures: Awaited<ReturnType<typeof held>>
    let pgliteWake: Awaited<ReturnType<typeof wakes>>
    try {
      heldFigures = await held(embedded)
      streamFigures = await held(embedded, true, '01055556666')
      pgliteWake = await wakes(embedded, embedded, '01087654321')
    } finally {
      await embedded.app.close()
    }

    let postgresWake: Awaited<ReturnType<typeof wakes>> | null = null
    const adminUrl = process.env.DATABASE_URL
    if (adminUrl) {
      const created = await createPostgresDatabase(adminUrl, 'laundry_bench')
      try {
        const a = await startApp(await openDatabase({ databaseUrl: created.url }), dataDir)
        const b = await startApp(await openDatabase({ databaseUrl: created.url }), dataDir)
        try {
          postgresWake = await wakes(a, b)
        } finally {
          await b.app.close()
          await a.app.close()
        }
      } finally {
        await created.drop()
      }
    }
    console.log(
      JSON.stringify({
        held: heldFigures,
        streams: streamFigures,
        wake: { pglite: pgliteWake, postgres: postgresWake },
      }),
    )
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

// The child: opens `heldCalls` held calls, says so, and destroys them all when told.
if (process.argv[2] === 'clients') {
  const [url, tokens] = [process.argv[3] as string, (process.argv[4] as string).split(',')]
  const accept = process.argv[5] === 'stream' ? { accept: 'text/event-stream' } : {}
  const requests: http.ClientRequest[] = []
  for (let i = 0; i < heldCalls; i++) {
    const access = tokens[i % tokens.length]
    const request = http.get(url, { agent: false, headers: { authorization: `Bearer ${access}`, ...accept } })
    request.on('error', () => {})
    requests.push(request)
  }
  process.send?.('sent')
  process.on('message', (message) => {
    if (message !== 'abort') return
    for (const request of requests) request.destroy()
    process.send?.('aborted')
    setTimeout(() => process.exit(0), 200)
  })
} else {
  await main()
}
