// SOLAPI stood in, in this process: the SDK's fixed address (https://api.solapi.com) is answered by
// undici's MockAgent on the global dispatcher, which the global fetch the SDK calls goes through. Every
// other address is refused (disableNetConnect): no message leaves this machine.
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
  const answers: Answer[] = []
  /** What it answers once the queue is empty. */
  let otherwise: Answer = accepted()

  return {
    received,
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
