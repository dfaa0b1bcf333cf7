// What an error of the solapi SDK means for us: refused (the provider said no; the same request again
// cannot help) or failed (5xx, no answer: worth retrying later), with a named reason and the provider's
// own code. Read from the SDK's code (solapi 6.0.1, dist/index.js): a 4xx answer rejects with a
// ClientError (the body's errorCode, errorMessage and the HTTP status), a 5xx other than 503 with a
// ServerError; a 503 or a connection refused/reset is retried by the SDK itself 3 times at once and then
// rejects with a DefaultError `RequestFailedAfterRetryError`; other network errors with a NetworkError;
// a 2xx whose only message was not accepted with a MessageNotReceivedError (its failedMessageList holds
// the provider's statusCode and statusMessage); our own input the SDK's schema refuses with a
// BadRequestError.
import {
  ApiKeyError,
  BadRequestError,
  ClientError,
  DefaultError,
  MessageNotReceivedError,
  NetworkError,
  ServerError,
} from 'solapi'
import type { MessageChannel, RefusalReason, SendOutcome } from './transport.ts'

/** The provider's own text is kept short in logs and the failure list. */
const detailLength = 200

/** Digits that could be a phone number (8 or more in a row, hyphens allowed) leave the server masked. */
const maskNumbers = (text: string) =>
  text.replace(
    /\d[\d-]{6,}\d/g,
    (digits) => `${'*'.repeat(Math.max(0, digits.length - 4))}${digits.slice(-4)}`,
  )

const detailOf = (text: string) => maskNumbers(text).slice(0, detailLength)

/**
 * The named reason of a refusal, from the HTTP status, the provider's code and its message (Korean or
 * English): the provider documents its codes as names and texts that change, so the words decide.
 */
export function refusalReason(code: string, message: string, httpStatus?: number): RefusalReason {
  const text = `${code} ${message}`
  if (httpStatus === 401 || httpStatus === 403) return 'badKey'
  if (/balance|잔액|NotEnough|insufficient|충전/i.test(text)) return 'insufficientBalance'
  if (
    /template|템플릿|pfId|kakao.?channel|채널|검수|inspection|sender.?(key|profile)|발신\s*프로필/i.test(text)
  )
    return 'templateNotApproved'
  if (/(sender|from).?(number|phone)|발신\s*번호|(unregistered|invalid).?sender/i.test(text))
    return 'unregisteredSender'
  if (
    /api.?key|api.?secret|signature|unauthori[sz]ed|credential|RequestTimeTooSkewed|인증\s*정보/i.test(text)
  )
    return 'badKey'
  if (/recipient|수신\s*번호|phone.?number|InvalidPhone/i.test(text)) return 'badRecipient'
  return 'other'
}

const refused = (
  channel: MessageChannel,
  code: string,
  message: string,
  httpStatus?: number,
): SendOutcome => ({
  status: 'refused',
  channel,
  reason: refusalReason(code, message, httpStatus),
  code,
  detail: detailOf(message),
  ...(httpStatus === undefined ? {} : { httpStatus }),
})

const failed = (
  channel: MessageChannel,
  code: string,
  message: string,
  httpStatus?: number,
): SendOutcome => ({
  status: 'failed',
  channel,
  code,
  detail: detailOf(message),
  ...(httpStatus === undefined ? {} : { httpStatus }),
})

/** The outcome of a send the SDK rejected with `error`. */
export function outcomeOfError(error: unknown, channel: MessageChannel): SendOutcome {
  if (error instanceof ClientError) {
    // Too many requests is the one 4xx that waiting cures.
    if (error.httpStatus === 429) return failed(channel, error.errorCode, error.errorMessage, 429)
    return refused(channel, error.errorCode, error.errorMessage, error.httpStatus)
  }
  if (error instanceof MessageNotReceivedError) {
    const first = error.failedMessageList[0]
    return refused(channel, first?.statusCode ?? 'MessageNotReceived', first?.statusMessage ?? error.message)
  }
  if (error instanceof ServerError)
    return failed(channel, error.errorCode, error.errorMessage, error.httpStatus)
  if (error instanceof DefaultError) return failed(channel, error.errorCode, error.errorMessage)
  if (error instanceof NetworkError) return failed(channel, 'NetworkError', String(error.cause))
  if (error instanceof ApiKeyError) return refused(channel, 'ApiKeyError', error.message)
  if (error instanceof BadRequestError) return refused(channel, 'BadRequest', error.message)
  return failed(channel, 'Unknown', error instanceof Error ? error.message : String(error))
}
