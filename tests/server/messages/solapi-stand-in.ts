// SOLAPI stood in, in this process: the SDK's fixed address (https://api.solapi.com) is answered by
// undici's MockAgent on the global dispatcher, which the global fetch the SDK calls goes through. Every
// other address is refused (disableNetConnect): no message leaves this machine. It takes messages
// (POST /messages/v4/send-many/detail) and answers the message list (GET /messages/v4/list?messageIds=…)
// with each message as the real API keeps it, its status code set by the test (`report`), else 3000.
import { createHmac } from 'node:crypto'
import { type Dispatcher, getGlobalDispatcher, MockAgent, setGlobalDispatcher } from 'undici'

export const apiKey = 'NCSTESTKEY0000001'
export const apiSecret = 'TESTSECRET0123456789ABCDEFGHIJKL'
export const sender = '0212345678'
export const pfId = 'KA01PF2026TESTCHANNEL'

export interface Received {
  authorization: string
  body: {
    messages: Record<string, unknown>[]
    [key: string]: unknown
  }
}

type Answer = { statusCode: number; data?: unknown } | { error: Error }

/** A query of the message list as the provider received it. */
export interface Queried {
  authorization: string
  path: string
  messageIds: string[]
  limit: string | null
}

/** What the provider keeps of a message: its status code, the type it went as, whether it replaced one. */
export interface Kept {
  statusCode: string
  type?: string
  replacement?: boolean
}

/** A message as GET /messages/v4/list answers it (the fields of SOLAPI's documented sample). */
export const storedMessage = (messageId: string, kept: Kept) => ({
  _id: messageId,
  messageId,
  groupId: 'G4V20261202000000TEST',
  accountId: '20261202000000',
  kakaoOptions: { pfId, templateId: null, disableSms: false, buttons: [] },
  type: kept.type ?? 'ATA',
  country: '82',
  subject: null,
  imageId: null,
  text: '',
  from: sender,
  to: '01012345678',
  statusCode: kept.statusCode,
  reason: null,
  networkCode: null,
  networkName: 'ETC',
  replacement: kept.replacement ?? false,
  autoTypeDetect: true,
  customFields: {},
  log: [],
  clusterKey: null,
  dateCreated: '2026-03-16T05:00:00.000Z',
  dateUpdated: '2026-03-16T05:00:10.000Z',
  dateProcessed: null,
  dateReceived: null,
  dateReported: null,
})

/** The provider's answer to a message it took. */
export const accepted = (groupId = 'G4V20261202000000TEST', messageId = 'M4V20261202000000TEST') => ({
  statusCode: 200,
  data: {
    failedMessageList: [],
    groupInfo: { groupId, count: { total: 1, registeredFailed: 0, registeredSuccess: 1 } },
    messageList: [{ messageId, statusCode: '2000', statusMessage: '정상 접수(이통사로 접수 예정)' }],
  },
})

/** The provider's answer (200) to a message it would not take: the code and text of its failedMessageList. */
export const notTaken = (statusCode: string, statusMessage: string) => ({
  statusCode: 200,
  data: {
    failedMessageList: [
      {
        to: '01012345678',
        from: sender,
        type: 'ATA',
        statusMessage,
        country: '82',
        messageId: 'M4V20261202000000FAIL',
        statusCode,
        accountId: '20261202000000',
      },
    ],
    groupInfo: {
      groupId: 'G4V20261202000000FAIL',
      count: { total: 1, registeredFailed: 1, registeredSuccess: 0 },
    },
  },
})

/** A 4xx or 5xx with the provider's error body. */
export const providerError = (statusCode: number, errorCode: string, errorMessage: string) => ({
  statusCode,
  data: { errorCode, errorMessage },
})

export function solapiStandIn() {
  let previous: Dispatcher | undefined
  let agent: MockAgent | undefined
  const received: Received[] = []
  const queried: Queried[] = []
  const kept = new Map<string, Kept>()
  const queryAnswers: Answer[] = []
  const answers: Answer[] = []
  /** What it answers once the queue is empty. */
  let otherwise: Answer = accepted()

  return {
    received,
    queried,
    /** The message's status as the list will answer it (4000 received, 3104 카카오톡 미사용자, …). */
    report(messageId: string, statusCode: string, more: Omit<Kept, 'statusCode'> = {}) {
      kept.set(messageId, { statusCode, ...more })
    },
    /** Answers to the next list queries, in turn (a 5xx, no answer). */
    answerQuery(...next: Answer[]) {
      queryAnswers.push(...next)
    },
    /** Answers in turn, one a request; then `otherwise`. */
    answer(...next: Answer[]) {
      answers.push(...next)
    },
    answerAlways(answer: Answer) {
      otherwise = answer
    },
    /** Forgets what it received and the answers queued. */
    reset() {
      received.length = 0
      answers.length = 0
      otherwise = accepted()
      queried.length = 0
      kept.clear()
      queryAnswers.length = 0
    },
    start() {
      previous = getGlobalDispatcher()
      agent = new MockAgent()
      agent.disableNetConnect()
      setGlobalDispatcher(agent)
      received.length = 0
      answers.length = 0
      otherwise = accepted()
      agent
        .get('https://api.solapi.com')
        .intercept({ path: '/messages/v4/send-many/detail', method: 'POST' })
        .reply((request) => {
          const headers = request.headers as Record<string, string>
          received.push({
            authorization: headers.Authorization ?? '',
            body: JSON.parse(String(request.body)),
          })
          const answer = answers.shift() ?? otherwise
          if ('error' in answer) throw answer.error
          return { statusCode: answer.statusCode, data: JSON.stringify(answer.data ?? {}) }
        })
        .persist()
      agent
        .get('https://api.solapi.com')
        .intercept({ path: (path) => path.startsWith('/messages/v4/list'), method: 'GET' })
        .reply((request) => {
          const headers = request.headers as Record<string, string>
          const query = new URL(request.path, 'https://api.solapi.com').searchParams
          const messageIds = query.getAll('messageIds')
          queried.push({
            authorization: headers.Authorization ?? '',
            path: request.path,
            messageIds,
            limit: query.get('limit'),
          })
          const answer = queryAnswers.shift()
          if (answer && 'error' in answer) throw answer.error
          if (answer) return { statusCode: answer.statusCode, data: JSON.stringify(answer.data ?? {}) }
          const messageList = Object.fromEntries(
            messageIds.map((id) => [id, storedMessage(id, kept.get(id) ?? { statusCode: '3000' })]),
          )
          return {
            statusCode: 200,
            data: JSON.stringify({
              startKey: null,
              nextKey: null,
              limit: Number(query.get('limit') ?? 20),
              messageList,
            }),
          }
        })
        .persist()
    },
    async stop() {
      if (previous) setGlobalDispatcher(previous)
      await agent?.close()
    },
  }
}

/**
 * The Authorization header as SOLAPI checks it: HMAC-SHA256 with our key, a date within 15 minutes of
 * now, a salt, and the signature recomputed here from the secret. Returns the date and salt.
 */
export function checkedAuthorization(header: string, secret = apiSecret) {
  const match = header.match(/^HMAC-SHA256 apiKey=(\S+), date=(\S+), salt=(\S+), signature=([0-9a-f]{64})$/)
  if (!match) throw new Error(`not an HMAC-SHA256 authorization: ${header}`)
  const [, key, date = '', salt = '', signature] = match
  const expected = createHmac('sha256', secret)
    .update(date + salt)
    .digest('hex')
  return { key, date, salt, signature, expected, skewMs: Math.abs(Date.parse(date) - Date.now()) }
}
