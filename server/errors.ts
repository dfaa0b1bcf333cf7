// Every error the API answers is `{ message }` in Korean with the right status; this file holds the
// texts and the one error handler that turns anything thrown into such an answer.
import { STATUS_CODES } from 'node:http'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'

export const messages = {
  badRequest: '요청 형식이 올바르지 않습니다.',
  phone: '휴대폰 번호를 확인해 주세요. 숫자 10~11자리로 입력해 주세요.',
  code: '인증번호는 숫자 4자리입니다.',
  year: '조회할 연도가 올바르지 않습니다.',
  storeId: '매장 번호가 올바르지 않습니다.',
  token: '로그인 정보가 올바르지 않습니다. 다시 로그인해 주세요.',
  loginRequired: '로그인이 필요합니다.',
  sessionExpired: '로그인이 만료되었습니다. 다시 로그인해 주세요.',
  wrongCode: '인증번호가 일치하지 않습니다.',
  codeExpired: '인증번호가 만료되었거나 요청되지 않았습니다. 인증번호를 다시 받아 주세요.',
  phoneLocked: '로그인 실패가 반복되어 잠시 잠겼습니다. 잠시 후 다시 시도해 주세요.',
  tooManyCodes: '인증번호 요청이 너무 많습니다. 잠시 후 다시 시도해 주세요.',
  tooManySignIns: '로그인 시도가 너무 많습니다. 잠시 후 다시 시도해 주세요.',
  forbidden: '이 매장의 매출을 볼 권한이 없습니다.',
  accessDenied: '접근할 수 없는 주소입니다.',
  notFound: '요청한 주소를 찾을 수 없습니다.',
  methodNotAllowed: '허용되지 않는 요청입니다.',
  notAcceptable: '보낼 수 있는 응답 형식이 없습니다.',
  timeout: '요청이 제시간에 끝나지 않았습니다. 다시 시도해 주세요.',
  preconditionFailed: '요청의 조건이 맞지 않습니다. 새로 고친 뒤 다시 시도해 주세요.',
  tooLarge: '요청이 너무 큽니다.',
  urlTooLong: '요청 주소가 너무 깁니다.',
  rangeNotSatisfiable: '요청한 범위를 보낼 수 없습니다.',
  headersTooLarge: '요청 헤더가 너무 큽니다.',
  unavailable: '서버가 잠시 요청을 받을 수 없습니다. 잠시 후 다시 시도해 주세요.',
  unsupportedType: '지원하지 않는 요청 형식입니다. JSON으로 보내 주세요.',
  expectationFailed: '요청의 Expect 헤더를 처리할 수 없습니다.',
  tooManyRequests: '요청이 너무 많습니다. 잠시 후 다시 시도해 주세요.',
  server: '서버에 문제가 생겼습니다. 잠시 후 다시 시도해 주세요.',
  ownerOnly: '매장 주인과 점장만 기기를 관리할 수 있습니다.',
  deviceName: '기기 이름은 1~40자로 입력해 주세요.',
  deviceNotFound: '이 매장에 그런 기기가 없습니다.',
  tooManyDevices: '기기 추가가 너무 많습니다. 잠시 후 다시 시도해 주세요.',
  pairingCode: '페어링 코드가 올바르지 않거나 만료되었습니다. 매장 주인에게 새 코드를 받아 주세요.',
  tooManyPairings: '페어링 시도가 너무 많습니다. 잠시 후 다시 시도해 주세요.',
  deviceKeyRequired: '기기 키가 필요합니다. Authorization: Bearer 기기 키를 보내 주세요.',
  deviceKey: '기기 키가 올바르지 않거나 해제되었습니다. 다시 페어링해 주세요.',
  deviceKeyElsewhere: '기기 키로는 이 요청을 할 수 없습니다. 로그인해 주세요.',
  tooManyDeviceRequests: '이 기기의 요청이 너무 많습니다. Retry-After 후에 다시 보내 주세요.',
  idempotencyKeyMissing: 'Idempotency-Key 헤더가 필요합니다 (보이는 문자 1~255자).',
  idempotencyKeyBad: 'Idempotency-Key는 보이는 문자 1~255자여야 합니다.',
  idempotencyKeyReused: '같은 Idempotency-Key로 다른 매출 묶음을 보냈습니다. 새 묶음에는 새 키를 쓰세요.',
  idempotencyKeyRunning: '같은 Idempotency-Key의 요청이 아직 처리 중입니다. 잠시 후 다시 보내 주세요.',
  tooManySales: '한 번에 보낼 수 있는 매출은 500건까지입니다.',
  salesTooLarge: '한 번에 보낼 수 있는 요청은 64 KiB까지입니다. 매출을 나눠 보내 주세요.',
  sentAt: 'sentAt은 오프셋이 있는 ISO 8601 시각이어야 합니다 (예: 2026-03-01T09:15:00+09:00).',
  pending: 'pending은 0 이상의 정수여야 합니다.',
  heartbeatMachines:
    '기계 상태(machines)는 64대까지, 기계마다 한 번씩 {machine: 보이는 문자 1~32자, state: idle·running·error·offline, kind?: washer·dryer·other, code?: 1~16자} 형태여야 합니다.',
  terminal: '결제 단말기 상태(terminal)는 ok나 down이어야 합니다.',
  failedPayments: '결제 실패 수(failedPayments)는 0부터 1,000,000까지의 정수여야 합니다.',
  after: 'after는 0 이상의 정수(받은 리비전)여야 합니다.',
  wait: 'wait는 0~25 사이의 정수(초)여야 합니다.',
  overviewWait: 'wait를 쓰려면 after(받은 rev)도 보내 주세요.',
  overviewStores: 'stores는 changed만 보낼 수 있습니다.',
  overviewClock: 'clock은 1만 보낼 수 있습니다.',
  pushEndpoint: '알림을 보낼 수 없는 주소입니다. 브라우저의 푸시 서비스 주소만 받습니다.',
  pushSubscription: '알림 구독 정보가 올바르지 않습니다. 알림을 다시 켜 주세요.',
  tooManyHeld: '실시간 요청이 너무 많이 열려 있습니다. 잠시 후 다시 시도해 주세요.',
  pushTestLimit: '시험 알림은 10분에 5번까지 보낼 수 있습니다. 잠시 후 다시 보내 주세요.',
  quietHours: '방해 금지 시간은 00:00~23:59 형식이고, 시작과 끝이 달라야 합니다.',
  alertSettings: '알림 설정 값이 올바르지 않습니다.',
  offlineMinutes: '단말기 연결 끊김 알림은 5분에서 30분 사이로 정해 주세요.',
  alertStore: '이 매장의 알림을 설정할 권한이 없습니다.',
  noKakao: '이 알림은 알림톡으로 보낼 수 없습니다 (서버에 알림톡 설정이 없습니다). 푸시로 받아 주세요.',
  alertChannels: '알림 방법은 push, kakao, both, none 중 하나로 정해 주세요.',
  month: '조회할 달이 올바르지 않습니다 (1~12).',
  machinesOwnerOnly: '매장 주인과 점장만 기계의 이름과 종류를 바꿀 수 있습니다.',
  machineNotFound: '이 매장에 그런 기계가 없습니다.',
  machineName: '기계 이름은 1~40자로 입력해 주세요 (null이면 기기가 보낸 이름으로 돌아갑니다).',
  machineKind: '기계 종류는 washer(세탁기), dryer(건조기), other(기타) 중 하나이거나 null이어야 합니다.',
  machineChange: '바꿀 수 있는 항목은 name과 kind뿐입니다.',
  taxOwnerOnly: '매장 주인만 세무 자료를 내려받을 수 있습니다.',
  taxDate: '날짜는 YYYY-MM-DD 형식의 실제 날짜여야 합니다 (예: 2026-01-01).',
  taxRange: '기간은 시작일(from)이 종료일(to)보다 늦지 않게, 최대 366일까지 정해 주세요.',
  teamOwnerOnly: '매장 주인만 직원을 초대하고 관리할 수 있습니다.',
  role: '역할은 owner(주인), manager(점장), staff(직원) 중 하나여야 합니다.',
  memberName: '이름은 1~40자로 입력해 주세요.',
  showsMoney: 'showsMoney는 true나 false여야 합니다.',
  teamChange: '보낼 수 있는 항목은 phone(초대만), role, name, showsMoney뿐입니다.',
  alreadyMember: '이미 이 매장의 구성원인 번호입니다.',
  tooManyInvites: '초대는 하루에 20번까지 보낼 수 있습니다. 내일 다시 시도해 주세요.',
  tooManyInvitesForNumber:
    '이 번호에는 이미 수락을 기다리는 초대가 3개 있습니다. 초대가 끝난 뒤 다시 시도해 주세요.',
  memberNotFound: '이 매장에 그런 구성원이 없습니다.',
  inviteNotFound: '이 매장에 그런 초대가 없거나 이미 끝났습니다.',
  lastOwner: '매장에는 주인이 한 명 이상 있어야 합니다. 다른 사람을 먼저 주인으로 지정해 주세요.',
  moneyHidden: '매장 주인이 이 매장의 금액을 보지 않도록 설정했습니다.',
} as const

/** An error whose status and Korean message go to the client as they are. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message)
  }
}

/** Which message a failed validation gets, by the field that failed. */
const fieldMessages: Record<string, string> = {
  phone: messages.phone,
  code: messages.code,
  year: messages.year,
  id: messages.storeId,
  token: messages.token,
  name: messages.deviceName,
  deviceId: messages.deviceNotFound,
  sentAt: messages.sentAt,
  pending: messages.pending,
  machines: messages.heartbeatMachines,
  terminal: messages.terminal,
  failedPayments: messages.failedPayments,
  after: messages.after,
  wait: messages.wait,
  stores: messages.overviewStores,
  clock: messages.overviewClock,
  endpoint: messages.pushEndpoint,
  keys: messages.pushSubscription,
  p256dh: messages.pushSubscription,
  auth: messages.pushSubscription,
  expirationTime: messages.pushSubscription,
  storeId: messages.storeId,
  quietHours: messages.quietHours,
  quiet: messages.alertSettings,
  deviceOffline: messages.alertSettings,
  deviceOfflineMinutes: messages.offlineMinutes,
  machineError: messages.alertSettings,
  machineSilent: messages.alertSettings,
  paymentTerminal: messages.alertSettings,
  morningSummary: messages.alertSettings,
  channels: messages.alertChannels,
  smsFallback: messages.alertSettings,
  snooze: messages.alertSettings,
}

/**
 * The message of every status the framework or a plugin can answer by itself. A 403 that no route
 * chose (a path outside the image folder, say) is not about stores, so it gets the neutral text.
 */
const statusMessages: Record<number, string> = {
  400: messages.badRequest,
  401: messages.loginRequired,
  403: messages.accessDenied,
  404: messages.notFound,
  405: messages.methodNotAllowed,
  406: messages.notAcceptable,
  408: messages.timeout,
  412: messages.preconditionFailed,
  413: messages.tooLarge,
  414: messages.urlTooLong,
  415: messages.unsupportedType,
  416: messages.rangeNotSatisfiable,
  417: messages.expectationFailed,
  429: messages.tooManyRequests,
  431: messages.headersTooLarge,
  500: messages.server,
  503: messages.unavailable,
}

function validationMessage(error: FastifyError): string {
  for (const issue of error.validation ?? []) {
    const params = issue.params as { missingProperty?: string }
    const field = params.missingProperty ?? issue.instancePath.split('/')[1] ?? ''
    const message = fieldMessages[field]
    if (message) return message
  }
  return messages.badRequest
}

interface LoggedError {
  [key: string]: unknown
  type: string
  message: string
  stack: string
}

/**
 * Errors as logs show them (the logger's `err` serializer): type, message, code and call stack, never
 * the values a database query ran with. Drizzle puts a failed query's parameters (phone numbers,
 * hashes) in its message, and PostgreSQL repeats key values in `detail`; both stay out.
 */
export function serializeError(error: unknown, depth = 0): LoggedError {
  if (!(error instanceof Error)) return { type: typeof error, message: String(error), stack: '' }
  const query = (error as { query?: unknown }).query
  const hasParams = typeof query === 'string' && 'params' in error
  const message = hasParams ? `Failed query: ${query}` : error.message
  const frames = error.stack?.split('\n').filter((line) => line.startsWith('    at ')) ?? []
  const logged: LoggedError = {
    type: error.constructor.name,
    message,
    stack: [`${error.name}: ${message}`, ...frames].join('\n'),
  }
  const code = (error as { code?: unknown }).code
  if (code !== undefined) logged.code = code
  if (error.cause !== undefined && depth < 3) logged.cause = serializeError(error.cause, depth + 1)
  return logged
}

export function handleError(error: FastifyError | ApiError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof ApiError) {
    if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds))
    return reply.code(error.statusCode).send({ message: error.message })
  }
  if (error.validation) return reply.code(400).send({ message: validationMessage(error) })
  const status =
    error.statusCode && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500
  if (status >= 500) {
    request.log.error({ err: error }, 'request failed')
    return reply.code(500).send({ message: messages.server })
  }
  // The code only: request logs never hold what the client sent, and a plugin's message may quote it
  // (a bad percent-encoding's message quotes the address).
  request.log.info({ code: error.code, statusCode: status }, 'request refused')
  return reply.code(status).send({ message: statusMessages[status] ?? messages.badRequest })
}

/** The contract's answer for `status`, as the head and body of a raw HTTP/1.1 response that closes the connection. */
function rawAnswer(status: number) {
  const body = JSON.stringify({ message: statusMessages[status] ?? messages.badRequest })
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  )
}

/**
 * Errors the HTTP parser meets before Fastify sees a request (a malformed request line, headers over
 * the size limit, a client too slow to send them): the same Korean `{ message }` answer, written to the
 * socket by hand. The raw bytes the parser kept (`rawPacket`, which may hold a token) are never logged.
 */
export function handleClientError(
  this: { log: { debug(object: object, message: string): void } },
  error: NodeJS.ErrnoException,
  socket: import('node:stream').Duplex,
) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const status =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400
  this.log.debug({ code: error.code, statusCode: status }, 'client error')
  if (socket.writable) socket.write(rawAnswer(status))
  socket.destroy()
}

/**
 * The other refusals Node's HTTP server makes by itself, before Fastify sees a request, given the
 * contract's answer: an Expect other than `100-continue` (Node writes a bare 417) and CONNECT (Node
 * closes the connection without a word; nothing here tunnels, so 405). The third, an HTTP/1.1
 * request without Host (a bare 400), is left to the app (`requireHostHeader: false` in app.ts), whose
 * hook answers it.
 */
export function answerServerRefusals(server: import('node:http').Server) {
  server.on('checkExpectation', (request, response) => {
    // Closed after: the client may send the body it was told to hold back. (HTTP/2 has no such
    // header, Node refuses it there: the stream ends with the answer.)
    const body = JSON.stringify({ message: messages.expectationFailed })
    response
      .writeHead(417, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
        ...(request.httpVersionMajor === 1 ? { connection: 'close' } : {}),
      })
      .end(body)
  })
  server.on('connect', (_request, socket: import('node:stream').Duplex) => {
    // Handed over by the HTTP server, the socket has no timeout of its own any more: once the answer
    // is written it is destroyed, or a client that never closes its side would hold it (and the
    // server's close) for ever.
    if (socket.writable) socket.end(rawAnswer(405), () => socket.destroy())
    else socket.destroy()
  })
}
