// SOLAPI stood in on this machine for the e2e run, as the push service is (global-setup.ts): the real
// server process is started with SOLAPI_BASE_URL pointing here (refused with NODE_ENV=production), so
// that the SDK's requests reach this listener instead of api.solapi.com. Each request is kept as one
// JSON line ({authorization, body}) in a file the specs read (E2E_SOLAPI_LOG); every message is taken.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export const solapiEnv = {
  SOLAPI_API_KEY: 'NCSE2EKEY0000001',
  SOLAPI_API_SECRET: 'E2ESECRET0123456789ABCDEFGHIJKLM',
  SOLAPI_SENDER: '0212345678',
  KAKAO_PFID: 'KA01PFE2ECHANNEL',
  // Only the machine error by 알림톡: the other kinds stay by push for every other spec's users.
  KAKAO_TEMPLATE_MACHINE_ERROR: 'KA01TPE2EMACHINEERROR',
}

export interface ReceivedMessage {
  to: string
  text: string
  kakaoOptions?: { pfId: string; templateId: string; variables: Record<string, string> }
}

export async function startSolapiStandIn(logFile: string) {
  writeFileSync(logFile, '')
  let count = 0
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      appendFileSync(
        logFile,
        `${JSON.stringify({ path: request.url, authorization: request.headers.authorization, body: JSON.parse(body || '{}') })}\n`,
      )
      count++
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(
        JSON.stringify({
          failedMessageList: [],
          groupInfo: {
            groupId: `G4VE2E${count}`,
            count: { total: 1, registeredFailed: 0, registeredSuccess: 1 },
          },
          messageList: [{ messageId: `M4VE2E${count}`, statusCode: '2000', statusMessage: '정상 접수' }],
        }),
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** The messages SOLAPI's stand-in received so far, in order. */
export function receivedMessages(logFile = process.env.E2E_SOLAPI_LOG ?? ''): ReceivedMessage[] {
  if (!existsSync(logFile)) throw new Error('E2E_SOLAPI_LOG is not set')
  return readFileSync(logFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .flatMap((line) => (JSON.parse(line) as { body: { messages: ReceivedMessage[] } }).body.messages)
}
