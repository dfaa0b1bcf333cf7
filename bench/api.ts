// The usage endpoint over loopback, on PGlite with demo data: the busy store's year, first answer
// (nothing cached), repeated answers, 304 revalidations, bytes on the wire, and throughput; and the same
// for the compact form our app asks for (docs/architecture.md, "The compact usage encoding"): its first
// answer and bytes.
import { request } from 'node:http'
import autocannon from 'autocannon'
import { compactUsageTypeV2, usageAccept } from '../contract/usage-compact-type.ts'
import type { RunningServer } from '../scripts/run-server.ts'

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number

/** Signs in through the API, reading the code from the server's console SMS line. */
export async function signInByApi(server: RunningServer, phone: string) {
  const mark = server.output().length
  const requested = await fetch(`${server.url}/api/v0/user/phone`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ phone }),
  })
  if (!requested.ok) throw new Error(`code request: ${requested.status}`)
  const code = await server.smsCode(phone, mark)
  const signed = await fetch(`${server.url}/api/v0/user/sign`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ phone, code }),
  })
  return ((await signed.json()) as { token: { access: string } }).token.access
}

/**
 * One GET over plain HTTP, timed to the last byte. The body is left as it came (compressed): what a
 * client then does with it is not the server's answer time.
 */
function timed(url: string, headers: Record<string, string>) {
  return new Promise<{
    ms: number
    status: number
    body: Buffer
    headers: Record<string, string | string[] | undefined>
  }>((resolve, reject) => {
    const started = performance.now()
    request(url, { headers }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () =>
        resolve({
          ms: performance.now() - started,
          status: response.statusCode ?? 0,
          body: Buffer.concat(chunks),
          headers: response.headers,
        }),
      )
    })
      .on('error', reject)
      .end()
  })
}

/** Asks for a store's year once, so the server has built and kept its answer. */
export async function usageAnswered(server: RunningServer, access: string, storeId: number, year: number) {
  const answer = await timed(`${server.url}/api/v0/store/${storeId}/usage?year=${year}`, {
    authorization: `Bearer ${access}`,
    'accept-encoding': 'br',
  })
  if (answer.status !== 200) throw new Error(`usage answered ${answer.status}`)
}

export const warmUpRequests = 200
export const timedRequests = 100

export async function benchApi(server: RunningServer, access: string, storeId: number, year: number) {
  const url = `${server.url}/api/v0/store/${storeId}/usage?year=${year}`
  const auth = { authorization: `Bearer ${access}` }
  const first = await timed(url, { ...auth, 'accept-encoding': 'br' })
  if (first.status !== 200) throw new Error(`usage answered ${first.status}`)
  const plain = await timed(url, auth)
  const records = (JSON.parse(plain.body.toString()) as { usages: unknown[] }).usages.length
  const etag = String(first.headers.etag)
  const wire = async (encoding: string) =>
    (await timed(url, { ...auth, 'accept-encoding': encoding })).body.length
  // The first answer goes out fast-compressed; the server then recompresses the kept one in the
  // background (seconds, on one core): what follows is measured once that is done, as owners meet it.
  const firstBrotliBytes = first.body.length
  for (let waited = 0; (await wire('br')) >= firstBrotliBytes && waited < 60_000; waited += 250)
    await new Promise((resolve) => setTimeout(resolve, 250))

  // A server runs for days: time it warmed up (its code compiled by the JIT), as owners meet it.
  const repeated: number[] = []
  const revalidated: number[] = []
  for (let i = 0; i < warmUpRequests + timedRequests; i++) {
    const answer = await timed(url, { ...auth, 'accept-encoding': 'br' })
    const notModified = await timed(url, { ...auth, 'if-none-match': etag })
    if (notModified.status !== 304) throw new Error(`expected 304, got ${notModified.status}`)
    if (i < warmUpRequests) continue
    repeated.push(answer.ms)
    revalidated.push(notModified.ms)
  }

  const [gzipBytes, brotliBytes, identityBytes] = [await wire('gzip'), await wire('br'), plain.body.length]

  // The compact form, as the app asks for it (version 2, the year's sums first): first answer (built
  // now), then its bytes.
  const compactHeaders = (encoding: string) => ({ ...auth, accept: usageAccept, 'accept-encoding': encoding })
  const compactFirst = await timed(url, compactHeaders('br'))
  if (compactFirst.status !== 200 || compactFirst.headers['content-type'] !== compactUsageTypeV2)
    throw new Error(`compact usage answered ${compactFirst.status} ${compactFirst.headers['content-type']}`)
  const compact = {
    firstAnswerMs: compactFirst.ms,
    identityBytes: (await timed(url, compactHeaders('identity'))).body.length,
    gzipBytes: (await timed(url, compactHeaders('gzip'))).body.length,
    brotliBytes: compactFirst.body.length,
    gzipBytesPerRecord: 0,
    brotliBytesPerRecord: 0,
  }
  compact.gzipBytesPerRecord = compact.gzipBytes / records
  compact.brotliBytesPerRecord = compact.brotliBytes / records

  const load = await autocannon({
    url,
    connections: 10,
    duration: 10,
    headers: { ...auth, 'accept-encoding': 'br' },
  })

  return {
    records,
    firstAnswerMs: first.ms,
    repeatedAnswerMs: median(repeated),
    notModifiedMs: median(revalidated),
    identityBytes,
    gzipBytes,
    brotliBytes,
    gzipBytesPerRecord: gzipBytes / records,
    brotliBytesPerRecord: brotliBytes / records,
    firstBrotliBytesPerRecord: firstBrotliBytes / records,
    compact,
    throughput: {
      connections: 10,
      seconds: 10,
      requestsPerSecond: load.requests.average,
      latencyP50Ms: load.latency.p50,
      latencyP99Ms: load.latency.p99,
      non2xx: load.non2xx,
    },
  }
}
