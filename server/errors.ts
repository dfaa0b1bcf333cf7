// Every error the API answers is `{ message }` in Korean with the right status; this file holds the
// texts and the one error handler that turns anything thrown into such an answer.
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
  notFound: '요청한 주소를 찾을 수 없습니다.',
  methodNotAllowed: '허용되지 않는 요청입니다.',
  tooLarge: '요청이 너무 큽니다.',
  unsupportedType: '지원하지 않는 요청 형식입니다. JSON으로 보내 주세요.',
  tooManyRequests: '요청이 너무 많습니다. 잠시 후 다시 시도해 주세요.',
  server: '서버에 문제가 생겼습니다. 잠시 후 다시 시도해 주세요.',
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
}

const statusMessages: Record<number, string> = {
  400: messages.badRequest,
  401: messages.loginRequired,
  403: messages.forbidden,
  404: messages.notFound,
  405: messages.methodNotAllowed,
  413: messages.tooLarge,
  415: messages.unsupportedType,
  429: messages.tooManyRequests,
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
  request.log.info({ err: error }, 'request refused')
  return reply.code(status).send({ message: statusMessages[status] ?? messages.badRequest })
}
