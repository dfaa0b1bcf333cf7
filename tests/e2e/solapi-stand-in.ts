// SOLAPI stood in on this machine for the e2e run, as the push service is (global-setup.ts): the real
// server process is started with SOLAPI_BASE_URL pointing here (refused with NODE_ENV=production), so
// that the SDK's requests reach this listener instead of api.solapi.com. Each message sent is kept as one
// JSON line ({path, authorization, body}) in a file the specs read (E2E_SOLAPI_LOG); every message is
// taken. The delivery reports' query (GET /messages/v4/list?messageIds=…, docs/product.md decision 251) is
// answered as the real API answers it: each message asked, received by the phone (status 4000).
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
    if (request.method === 'GET' && request.url?.startsWith('/messages/v4/list')) {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(JSON.stringify(messageList(new URL(request.url, 'http://stand.in').searchParams)))
      return
    }
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

/** The message list's answer: each message asked (`messageIds`), as SOLAPI keeps it, received (4000). */
function messageList(query: URLSearchParams) {
  const messageList = Object.fromEntries(
    query.getAll('messageIds').map((messageId) => [
      messageId,
      {
        _id: messageId,
        messageId,
        groupId: `G4VE2E${messageId.slice(6)}`,
        accountId: 'E2E',
        kakaoOptions: { pfId: solapiEnv.KAKAO_PFID, templateId: null, disableSms: false, buttons: [] },
        type: 'ATA',
        country: '82',
        subject: null,
        imageId: null,
        text: '',
        from: solapiEnv.SOLAPI_SENDER,
        to: '',
        statusCode: '4000',
        reason: null,
        networkCode: null,
        networkName: 'ETC',
        replacement: false,
        autoTypeDetect: true,
        customFields: {},
        log: [],
        clusterKey: null,
        dateCreated: new Date().toISOString(),
        dateUpdated: new Date().toISOString(),
        dateProcessed: null,
        dateReceived: null,
        dateReported: null,
      },
    ]),
  )
  return { startKey: null, nextKey: null, limit: Number(query.get('limit') ?? 20), messageList }
}

/** The messages SOLAPI's stand-in received so far, in order. */
export function receivedMessages(logFile = process.env.E2E_SOLAPI_LOG ?? ''): ReceivedMessage[] {
  if (!existsSync(logFile)) throw new Error('E2E_SOLAPI_LOG is not set')
  return readFileSync(logFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .flatMap((line) => (JSON.parse(line) as { body: { messages: ReceivedMessage[] } }).body.messages)
}
