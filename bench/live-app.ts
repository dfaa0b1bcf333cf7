// Live figures (docs/product.md §2.3, decisions 83-88, 100) in Chromium against the real server: how
// soon a device's sale shows on an open sales screen (p95), and the bytes an open screen costs over an
// hour of sales at the demo stores' busiest rhythm (device/simulate.ts). The bytes are counted on the
// wire: the browser reaches the server through a counting TCP proxy in this process (every byte both
// ways: TLS records, HTTP/2 frames, headers, bodies). Time is compressed: the hour's sales are posted
// one after another (each waits until the screen shows the one before, so each is one answer of its
// own, the worst case), and the held calls that an hour without sales would renew every 25 s are
// counted from one such round, measured.
//
// Alone: `node --import tsx bench/live-app.ts` (after `npm run build`) measures the hour over plain
// HTTP/1.1 and over HTTPS with HTTP/2 (a self-signed certificate made with openssl), against the targets;
// `node --import tsx bench/live-app.ts dist h2` (or h1) measures one of them.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium, type Page } from '@playwright/test'
import { hourWeights, monthFactor, weekdayFactor } from '../device/simulate.ts'
import { type RunningServer, runServer } from '../scripts/run-server.ts'
import { selfSignedCertificate } from '../scripts/self-signed.ts'
import { chromeArgs, chromePath } from '../tests/e2e/browser.ts'
import { benchServerEnv } from './throttled.ts'

const held = 25
/** The access token's life (server/config.ts, ACCESS_TOKEN_SECONDS' default). */
const accessTokenSeconds = 900
/** The demo stores' cycles a day (server/db/seed.ts), busiest first. */
const perDay = [200, 85, 45]
/** Sales in the busiest hour of the busiest weekday and month, by the demo rhythm. */
const busiestHour = (cycles: number) =>
  Math.ceil(
    (cycles * Math.max(...weekdayFactor) * Math.max(...monthFactor) * Math.max(...hourWeights)) /
      hourWeights.reduce((a, b) => a + b, 0),
  )

async function api(server: RunningServer, path: string, bearer: string, body: unknown, key?: string) {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${bearer}`,
      ...(key ? { 'idempotency-key': key } : {}),
    },
    body: JSON.stringify(body),
  })
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`)
  return response.json() as Promise<Record<string, unknown>>
}

/** A device paired with a store, through the owner's call and the device's. */
async function pair(server: RunningServer, access: string, storeId: number) {
  const added = await api(server, `/api/v0/store/${storeId}/devices`, access, { name: `bench ${storeId}` })
  const paired = await fetch(`${server.url}/api/v0/device/pair`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code: added.pairingCode }),
  })
  return ((await paired.json()) as { key: string }).key
}

let sold = 0
async function sell(server: RunningServer, deviceKey: string, amount: number) {
  sold += 1
  const id = `bench-live-${Date.now()}-${sold}`
  await api(
    server,
    '/api/v0/device/sales',
    deviceKey,
    { sales: [{ id, createdAt: new Date().toISOString(), amount }] },
    id,
  )
}

/**
 * A TCP proxy on another loopback address that adds up every byte it passes, both ways, on every
 * connection: what the browser and the server really exchange, whatever the protocol.
 */
async function countingProxy(target: URL) {
  let bytes = 0
  let up = 0
  const sockets = new Set<net.Socket>()
  const tlsRecords = target.protocol === 'https:'
  /** While set, each TLS record (or, in plain HTTP, each chunk) as it passes: direction, size, time. */
  let log: WireRecord[] | null = null
  const proxy = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname)
    const records = { up: recordSplitter(tlsRecords), down: recordSplitter(tlsRecords) }
    client.on('data', (chunk: Buffer) => {
      for (const size of records.up(chunk)) log?.push({ up: true, size, at: Date.now() })
    })
    upstream.on('data', (chunk: Buffer) => {
      for (const size of records.down(chunk)) log?.push({ up: false, size, at: Date.now() })
    })
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      socket.on('error', () => {
        client.destroy()
        upstream.destroy()
      })
    }
    client.on('data', (chunk: Buffer) => {
      bytes += chunk.length
      up += chunk.length
    })
    upstream.on('data', (chunk: Buffer) => (bytes += chunk.length))
    client.pipe(upstream)
    upstream.pipe(client)
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.2', resolve))
  const address = proxy.address() as net.AddressInfo
  return {
    url: `${target.protocol}//127.0.0.2:${address.port}`,
    bytes: () => bytes,
    /** Of which sent by the browser. */
    up: () => up,
    /** Starts keeping the records that pass; returns them as they come. */
    record: () => {
      log = []
      return log
    },
    close: () => {
      for (const socket of sockets) socket.destroy()
      return new Promise<void>((resolve) => proxy.close(() => resolve()))
    },
  }
}

interface WireRecord {
  /** Sent by the browser. */
  up: boolean
  /** Bytes on the wire: a TLS record with its 5-byte header, or a plain chunk. */
  size: number
  at: number
}

/** Splits one direction of a TLS connection into its records' sizes (RFC 8446 §5.1); plain: the chunks. */
function recordSplitter(tls: boolean) {
  let header = Buffer.alloc(0)
  let rest = 0
  return (chunk: Buffer) => {
    if (!tls) return [chunk.length]
    const sizes: number[] = []
    let at = 0
    while (at < chunk.length) {
      if (rest > 0) {
        const taken = Math.min(rest, chunk.length - at)
        rest -= taken
        at += taken
        continue
      }
      const need = 5 - header.length
      header = Buffer.concat([header, chunk.subarray(at, at + need)])
      at += Math.min(need, chunk.length - at)
      if (header.length < 5) break
      const length = header.readUInt16BE(3)
      sizes.push(5 + length)
      rest = length
      header = Buffer.alloc(0)
    }
    return sizes
  }
}

/** The records of a window as a line: ↓ from the server, ↑ from the browser, at seconds from its start. */
function recordsLine(records: WireRecord[], from: number) {
  return records.map((r) => `${((r.at - from) / 1000).toFixed(1)}s ${r.up ? '↑' : '↓'}${r.size}`).join(' ')
}

/**
 * Held calls that end without a sale in an hour with `sales` sales at an even rhythm: each sale answers
 * the call held when it comes, so a gap of 3600/sales seconds holds floor(gap / 25) calls to their end.
 */
const heldToTheEnd = (sales: number) => (sales === 0 ? 3600 / held : sales * Math.floor(3600 / sales / held))

type Proxy = Awaited<ReturnType<typeof countingProxy>>

/** How Chromium spoke to the server for the changes calls (h2 or http/1.1). */
let protocol = ''
/** Whether the held calls were answered as streams (decision 133). */
let streamed = false
/** The held calls' requests (of every window: a stream outlives the window it was opened in). */
const heldIds = new Set<string>()
const heldUrls = new Set<string>()

/** From now on: the bytes on the wire (the proxy's count), the response bodies as Chromium received them, the changes calls. */
async function wire(page: Page, proxy: Proxy) {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('Network.enable')
  const start = proxy.bytes()
  const startUp = proxy.up()
  let bodies = 0
  let changesCalls = 0
  let overviewCalls = 0
  let pieces = 0
  const requestUrls = new Map<string, string>()
  cdp.on('Network.dataReceived', (event) => {
    bodies += event.dataLength
    if (heldIds.has(event.requestId) || heldUrls.has(requestUrls.get(event.requestId) ?? '')) pieces += 1
  })
  cdp.on('Network.requestWillBeSent', (event) => {
    requestUrls.set(event.requestId, event.request.url)
    if (event.request.url.includes('/usage/changes')) changesCalls += 1
    if (event.request.url.includes('/stores/overview?after=')) overviewCalls += 1
    if (event.request.url.includes('/usage/changes') || event.request.url.includes('/stores/overview?after='))
      heldIds.add(event.requestId)
  })
  cdp.on('Network.responseReceived', (event) => {
    if (event.response.url.includes('/usage/changes')) protocol = event.response.protocol ?? protocol
    if (heldIds.has(event.requestId) && event.response.mimeType === 'text/event-stream') streamed = true
  })
  return {
    /** Streamed (decision 133): the comments received stand for the rounds of held calls. */
    pieces: () => pieces,
    bytes: () => proxy.bytes() - start,
    up: () => proxy.up() - startUp,
    bodies: () => bodies,
    changesCalls: () => changesCalls,
    overviewCalls: () => overviewCalls,
  }
}

const wonOf = (text: string | null) => Number((text ?? '').replace(/\D/g, ''))
const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.95) - 1] ?? 0

export async function benchLiveApp(server: RunningServer, phone: string) {
  const proxy = await countingProxy(new URL(server.url))
  protocol = ''
  streamed = false
  const browser = await chromium.launch({ executablePath: chromePath, args: chromeArgs })
  try {
    // A self-signed certificate over HTTPS: the live loop needs no service worker, which may not register.
    const context = await browser.newContext({ baseURL: proxy.url, locale: 'ko-KR', ignoreHTTPSErrors: true })
    const page = await context.newPage()
    page.on('dialog', (dialog) => void dialog.accept())
    // From the start: which requests are held calls, and whether they are answered as streams (a
    // stream outlives the window it was opened in).
    page.on('request', (r) => {
      if (r.url().includes('/usage/changes') || r.url().includes('/stores/overview?after='))
        heldUrls.add(r.url())
    })
    page.on('response', (r) => {
      if (heldUrls.has(r.url()) && r.headers()['content-type'] === 'text/event-stream') streamed = true
    })
    await page.goto('/login')
    await page.getByLabel('휴대폰 번호').fill(phone)
    const mark = server.output().length
    await page.getByRole('button', { name: 'get verification code' }).click()
    await page.getByLabel('인증번호').fill(await server.smsCode(phone, mark))
    await page.getByRole('button', { name: 'Login' }).click()
    await page.locator('.sales-figures[aria-busy="false"]:not(.is-stale)').waitFor()
    const access = (await context.cookies()).find((c) => c.name === 'accessToken')?.value ?? ''
    const keys = [await pair(server, access, 1)]

    // The sales screen of the busy store: each sale until the month's total shows it.
    await page.goto('/?store=1')
    await page.locator('.sales-figures[aria-busy="false"]:not(.is-stale)').waitFor()
    await page.waitForTimeout(1000)
    const sales = busiestHour(perDay[0] as number)
    const salesWire = await wire(page, proxy)
    const latencies: number[] = []
    let saleLine = ''
    for (let i = 0; i < sales; i++) {
      const saleRecords = proxy.record()
      const saleStart = Date.now()
      const amount = 1000 + i * 10
      const shown = wonOf(await page.getByTestId('month-total').textContent())
      const started = Date.now()
      await sell(server, keys[0] as string, amount)
      await page.waitForFunction(
        (expected) =>
          document.querySelector('[data-testid="month-total"]')?.textContent?.replace(/\D/g, '') === expected,
        String(shown + amount),
        { polling: 'raf' },
      )
      latencies.push(Date.now() - started)
      // The sale's round: the held call's answer, the browser's next call (read after it settles).
      await page.waitForTimeout(300)
      saleLine = recordsLine(saleRecords.splice(0), saleStart)
    }
    const salesBytes = salesWire.bytes()
    const salesBodies = salesWire.bodies()

    // The access token's end, every ACCESS_TOKEN_SECONDS (900 s: 4 an hour): the next held call is
    // refused (401), the app refreshes the tokens and asks again. Made to happen now by a token the
    // server refuses in the access cookie (the sign-in's own cookies stay, so the session goes on); the
    // window holds that and one renewed round, whose measured bytes are taken off.
    const refreshWire = await wire(page, proxy)
    const refreshStart = Date.now()
    const refreshRecords = proxy.record()
    await page.evaluate(() => {
      // biome-ignore lint/suspicious/noDocumentCookie: the bench stands in for a token that expired
      document.cookie = 'accessToken=expired; path=/'
    })
    // A stream ends when its token expires (the server closes it) and the app asks again: here the tab
    // hidden and shown again ends the stream and asks again (an RST_STREAM instead of the server's end).
    // As text: tsx would wrap a function given here in a helper the page does not have.
    if (streamed)
      await page.evaluate(`for (const hidden of [true, false]) {
        Object.defineProperty(document, 'visibilityState', { configurable: true, get() { return hidden ? 'hidden' : 'visible' } })
        document.dispatchEvent(new Event('visibilitychange'))
      }`)
    await page.waitForTimeout((held + 3) * 1000)
    const refreshLine = recordsLine(refreshRecords.splice(0), refreshStart)
    const refreshWindowBytes = refreshWire.bytes()
    const refreshRounds = streamed ? refreshWire.pieces() : refreshWire.changesCalls()
    // The service worker's update check, hourly (src/pwa/update-prompt.tsx), when one is registered.
    const updateWire = await wire(page, proxy)
    const updated = await page.evaluate(async () => {
      const registration = await navigator.serviceWorker?.getRegistration()
      if (!registration) return false
      await registration.update().catch(() => undefined)
      return true
    })
    await page.waitForTimeout(1000)
    const updateBytes = updated ? updateWire.bytes() : null

    // The sales screen's idle round (its one held changes call), measured.
    const idleWire = await wire(page, proxy)
    const idleStart = Date.now()
    const idleRecords = proxy.record()
    await page.waitForTimeout((held + 3) * 1000)
    const idleLine = recordsLine(idleRecords.splice(0), idleStart)
    const idleRounds = streamed ? idleWire.pieces() : idleWire.changesCalls()
    const idleRoundBytes = idleWire.bytes() / Math.max(1, idleRounds)
    const idleRoundBodies = idleWire.bodies() / Math.max(1, idleRounds)
    const idleRoundUp = idleWire.up() / Math.max(1, idleRounds)
    // A round on the sales screen: the idle window's (Chromium reports no data for a comment's 8-byte
    // chunk over HTTP/1.1, so rounds are not counted by the pieces seen; a window apart for them also held,
    // over HTTP/1.1, the browser's own check of the service worker: sw.js, push-sw.js and workbox 304s).
    const screenRoundBytes = idleRoundBytes
    // The refresh window less its renewed round and, with a worker, the update check that showing the tab
    // again makes (src/pwa/update-prompt.tsx; the hour counts one apart): a token's real end shows no tab.
    const refreshBytes = Math.max(
      0,
      refreshWindowBytes -
        screenRoundBytes * Math.max(0, refreshRounds - 1) -
        (streamed ? (updateBytes ?? 0) : 0),
    )

    const roundsPerHour = heldToTheEnd(sales)
    const refreshesPerHour = 3600 / accessTokenSeconds
    return {
      /** Records on the wire in the idle window (about one round and a bit), and in the last sale's round. */
      idleLine,
      saleLine,
      screenRoundBytes: Math.round(screenRoundBytes),
      refreshLine,
      refreshBytes: Math.round(refreshBytes),
      refreshesPerHour,
      updateBytes,
      /** The hour: the sales, the held calls renewed, the token refreshes and the worker's update check. */
      salesScreenHourBytes: Math.round(
        salesBytes + roundsPerHour * screenRoundBytes + refreshesPerHour * refreshBytes + (updateBytes ?? 0),
      ),
      roundsPerHour,
      /** How the browser spoke to the server for the changes calls (h2 or http/1.1), as Chromium reports it. */
      protocol,
      streamed,
      sales,
      latencyP95Ms: p95(latencies),
      latencyMedianMs: [...latencies].sort((a, b) => a - b)[Math.floor(latencies.length / 2)] ?? 0,
      latenciesMs: latencies,
      idleRoundBytes: Math.round(idleRoundBytes),
      /** Of a round's bytes, those the browser sent (the request, acknowledgements). */
      idleRoundUpBytes: Math.round(idleRoundUp),
      idleRounds,
      salesScreenBytesPerHour: Math.round(salesBytes + roundsPerHour * idleRoundBytes),
      salesScreenSalesBytes: salesBytes,
      idleRoundBodyBytes: Math.round(idleRoundBodies),
      /** The same hour's response bodies alone, as Chromium received them (no headers, no framing). */
      salesScreenBodyBytesPerHour: Math.round(salesBodies + roundsPerHour * idleRoundBodies),
      /** The bodies of the sales' events, as Chromium received them: an event's framing is the rest. */
      salesScreenSalesBodies: salesBodies,
    }
  } finally {
    await browser.close()
    await proxy.close()
  }
}

const targets = { salesScreen: 30_000, overview: 60_000 }

/** The hour over plain HTTP/1.1 and over HTTPS with HTTP/2, each on a server of its own (PGlite, demo data). */
export async function benchLiveAppBoth(webDir: string, phone: string, only?: 'h1' | 'h2') {
  const dir = mkdtempSync(path.join(tmpdir(), 'laundry-bench-live-'))
  // The browser is told to accept it.
  const { certFile, keyFile } = selfSignedCertificate(dir)
  const results: Record<string, Awaited<ReturnType<typeof benchLiveApp>>> = {}
  try {
    for (const [mode, env] of [
      ['HTTP/1.1', {}],
      ['HTTPS + HTTP/2', { TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile }],
    ] as const) {
      if (only && (only === 'h2') !== mode.startsWith('HTTPS')) continue
      const server = await runServer({
        dataDir: mkdtempSync(path.join(dir, 'data-')),
        webDir,
        env: { ...benchServerEnv, ...env },
      })
      try {
        results[mode] = await benchLiveApp(server, phone)
      } finally {
        await server.stop()
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return results
}

const kB = (n: number) => `${(n / 1000).toFixed(1)} kB`

/** What bench/overview-hour.ts counts of the overview's stream over its busiest hour (its JSON line). */
export interface OverviewHour {
  hourStart: string
  sales: number
  whole: OverviewHourCounts
  changed: OverviewHourCounts
  /** With the clocks (decision 237), and the stream's first event that carries them. */
  clocks: OverviewHourCounts
  firstEventBytes: number
}
interface OverviewHourCounts {
  saleEvents: number
  clockEvents: number
  comments: number
  eventBytes: number
  largest: number
}

/** Runs bench/overview-hour.ts in its own process; `await` it for its counts. */
export function overviewHour(): Promise<OverviewHour> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/overview-hour.ts'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (chunk) => {
      out += chunk
    })
    child.on('error', reject)
    child.on('close', (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '{}'))
        : reject(Error('bench/overview-hour.ts failed')),
    )
  })
}

/**
 * The overview's whole hour (decision 151), one hour throughout: bench/overview-hour.ts's busiest hour,
 * its events (at sales and moved by the clock alone) at their own bytes, each with the framing a sale's
 * event was measured with on the wire here (its bytes beyond its body: frame, record, acknowledgements),
 * its comments as a comment round measured on the sales screen's stream (the same bytes), and the token
 * refreshes as measured on the sales screen (the stream asked again after the kept rev answers a comment,
 * which that measure holds).
 */
function overviewHourRow(
  mode: string,
  app: Awaited<ReturnType<typeof benchLiveApp>>,
  hour: OverviewHour,
): [string, string, string] {
  // The sales' events came one after another; an hour's come apart, each acknowledged by the browser as a
  // lone comment is (HTTP/2's WINDOW_UPDATEs after a quiet spell): that much more each.
  // An event's cost on the wire is the stream's, whichever screen: measured on the sales screen's sales
  // (the overview's own window of 45 sales measured the same again, dropped 2026-12-02). Sent as they
  // are, an event costs its body and a framing; on a compressed stream its bytes on the wire are fewer
  // than its body's (wire minus body is negative), so the overview's events are taken at the sales'
  // ratio of wire to body bytes instead, framing included.
  const { saleEvents, clockEvents, comments } = hour.clocks
  const eventBytes = hour.clocks.eventBytes + hour.firstEventBytes
  const events = saleEvents + clockEvents + 1
  const sales = Math.max(1, app.sales)
  const compressed = app.salesScreenSalesBytes < app.salesScreenSalesBodies
  const ratio = app.salesScreenSalesBytes / Math.max(1, app.salesScreenSalesBodies)
  const framing = Math.round((app.salesScreenSalesBytes - app.salesScreenSalesBodies) / sales)
  const eventsOnWire = compressed
    ? Math.round(eventBytes * ratio) + events * app.idleRoundUpBytes
    : eventBytes + events * (framing + app.idleRoundUpBytes)
  const bytes = eventsOnWire + comments * app.idleRoundBytes + app.refreshesPerHour * app.refreshBytes
  const how = compressed
    ? `${kB(eventBytes)} of bodies x ${ratio.toFixed(2)} (the compressed stream's wire bytes to body bytes over the sales screen's ${app.sales} sales' events, framing included) + ${events} x ${app.idleRoundUpBytes} B of acknowledgements`
    : `${kB(eventBytes)} + ${events} x ${framing + app.idleRoundUpBytes} B framing (measured over the sales screen's ${app.sales} sales' events, with ${app.idleRoundUpBytes} B of acknowledgements)`
  return [
    `live, ${mode} (${app.protocol}): the overview of 3 stores' hour, all of it: sales and the clock's events, comments, ${app.refreshesPerHour} token refreshes`,
    `${kB(bytes)} = ${events} events (the clocks ${hour.firstEventBytes} B, ${saleEvents} at sales, ${clockEvents} moved by the clock alone): ${how}; + ${comments} comments x ${app.idleRoundBytes} B + ${app.refreshesPerHour} x ${app.refreshBytes} B; the busiest hour from ${hour.hourStart} (${hour.sales} sales); without the clocks the events alone were ${kB(hour.changed.eventBytes)} (${hour.changed.clockEvents} moved by the clock alone), with every store in each ${kB(hour.whole.eventBytes)}`,
    `target <= ${kB(targets.overview)}: ${bytes <= targets.overview ? 'met' : 'missed'}`,
  ]
}

/** The rows of the bytes figures against the targets; the overview's whole hour from `hour`'s counts. */
export function liveBytesRows(
  mode: string,
  app: Awaited<ReturnType<typeof benchLiveApp>>,
  hour: OverviewHour,
): [string, string, string][] {
  return [
    [
      `live, ${mode} (${app.protocol}${app.streamed ? ', streamed' : ''}): bytes on the wire an hour, open sales screen of the busy store`,
      `${kB(app.salesScreenBytesPerHour)} (${app.sales} sales ${kB(app.salesScreenSalesBytes)}, ${Math.round(app.salesScreenSalesBytes / app.sales)} B each; plus ${app.roundsPerHour} held calls renewed, ${app.idleRoundBytes} B each, ${app.idleRoundUpBytes} B of them sent by the browser, from ${app.idleRounds} measured); bodies alone ${kB(app.salesScreenBodyBytesPerHour)}\n    records on the wire (↓ server, ↑ browser), idle window: ${app.idleLine}\n    the last sale's round: ${app.saleLine}`,
      `target <= ${kB(targets.salesScreen)}: ${app.salesScreenBytesPerHour <= targets.salesScreen ? 'met' : 'missed'}`,
    ],
    [
      `live, ${mode} (${app.protocol}): the sales screen's hour, all of it: ${app.sales} sales, ${app.roundsPerHour} held calls renewed, ${app.refreshesPerHour} token refreshes, one service worker update check`,
      `${kB(app.salesScreenHourBytes)} = sales ${kB(app.salesScreenSalesBytes)} + ${app.roundsPerHour} x ${app.screenRoundBytes} B (the idle window's round) + ${app.refreshesPerHour} x ${app.refreshBytes} B + update check ${app.updateBytes === null ? 'n/a (no worker)' : `${app.updateBytes} B`}\n    refresh window (a 401, the refresh, the call again, a round): ${app.refreshLine}`,
      `target <= ${kB(targets.salesScreen)}: ${app.salesScreenHourBytes <= targets.salesScreen ? 'met' : 'missed'}`,
    ],
    overviewHourRow(mode, app, hour),
  ]
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // The bench's own calls (pairing, sales) go straight to the server, which has a self-signed certificate.
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0'
  // A third argument, h1 or h2, measures one of the two (a loaded machine starts two servers slowly).
  const only = process.argv[3] === 'h1' || process.argv[3] === 'h2' ? process.argv[3] : undefined
  // Counted first: beside the browser it would slow the sales it times.
  const hour = await overviewHour()
  const results = await benchLiveAppBoth(path.resolve(process.argv[2] ?? 'dist'), '01012345678', only)
  for (const [mode, app] of Object.entries(results)) {
    console.log(
      `${mode}: sale to screen p95 ${app.latencyP95Ms} ms (median ${app.latencyMedianMs} ms, ${app.sales} sales)`,
    )
    for (const [name, value, target] of liveBytesRows(mode, app, hour))
      console.log(`  ${name}\n    ${value}  [${target}]`)
  }
}
