// A push service of our own for the integration test: HTTPS on 127.0.0.1 with a self-signed certificate
// made by openssl (web-push only speaks HTTPS), which keeps every request it receives and answers by
// path: `/gone/…` 410, `/busy/…` 429 with Retry-After 30, anything else 201.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { selfSignedCertificate } from '../../../scripts/self-signed.ts'

export interface Received {
  path: string
  headers: Record<string, string | string[] | undefined>
  body: Buffer
}

export async function startMockPushService() {
  const dir = mkdtempSync(path.join(tmpdir(), 'push-service-'))
  const { certFile, keyFile: key } = selfSignedCertificate(dir)
  const cert = readFileSync(certFile)
  const received: Received[] = []
  const server: Server = createServer({ key: readFileSync(key), cert }, (request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const url = request.url ?? '/'
      received.push({ path: url, headers: request.headers, body: Buffer.concat(chunks) })
      if (url.startsWith('/gone/')) response.writeHead(410).end()
      else if (url.startsWith('/busy/')) response.writeHead(429, { 'retry-after': '30' }).end()
      else response.writeHead(201, { location: `${url}/message` }).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `https://127.0.0.1:${port}`,
    /** The certificate to trust (web-push's `agent` option). */
    cert,
    received,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()))
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
