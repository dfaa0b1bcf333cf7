// The message transport through SOLAPI (the CoolSMS family), with its SDK `solapi`: one message per
// request to POST https://api.solapi.com/messages/v4/send-many/detail, signed by the SDK with
// `Authorization: HMAC-SHA256 apiKey=…, date=…, salt=…, signature=…` (HMAC-SHA256 of date + salt under
// the API secret, hex). Nothing but the recipient's own number and the message leaves the server. The
// reports of accepted messages are asked with GET /messages/v4/list?messageIds=…&limit=n (decision 251).
import { SolapiMessageService, type StoredMessage } from 'solapi'
import { outcomeOfError } from './solapi-errors.ts'
import {
  type AlimtalkOptions,
  type DeliveryReport,
  eucKrBytes,
  type MessageChannel,
  type MessageTransport,
  type RefusalReason,
  type SendOutcome,
  smsMaxBytes,
} from './transport.ts'

export interface SolapiSettings {
  apiKey: string
  apiSecret: string
  /** The registered sender number (SOLAPI_SENDER), digits only. */
  sender: string
  /** The Kakao business channel's id (KAKAO_PFID); without it there is no 알림톡. */
  pfId?: string | undefined
  /** Tests only (SOLAPI_BASE_URL, refused in production): the provider stood in at this address. */
  baseUrl?: string | undefined
}

const solapiOrigin = 'https://api.solapi.com'

/**
 * The SDK's address is fixed (its services keep it to themselves): for a stand-in, this process's
 * fetch sends what is addressed to SOLAPI to `baseUrl` instead, once, and nothing else changes.
 */
function standIn(baseUrl: string) {
  const original = globalThis.fetch
  if ((original as { solapiStandIn?: string }).solapiStandIn === baseUrl) return
  const redirected = (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    return url.startsWith(`${solapiOrigin}/`)
      ? original(`${baseUrl}${url.slice(solapiOrigin.length)}`, init)
      : original(input, init)
  }
  globalThis.fetch = Object.assign(redirected, { solapiStandIn: baseUrl }) as typeof fetch
}

/** Refusals that an SMS instead of the 알림톡 would meet as well: no point falling back. */
const accountWide = new Set<RefusalReason>([
  'badKey',
  'insufficientBalance',
  'unregisteredSender',
  'badRecipient',
])

/**
 * A message's report from its stored record (solapi 6.0.1's StoredMessage). Its statusCode is one of
 * SOLAPI's four-digit codes (docs.solapi.com, 메시지 상태 코드): 2000 accepted and 3000 handed to the
 * carrier or Kakao (no final word yet), 4000 received by the phone; any other is final and a failure
 * (1xxx at intake, 2xxx in the platform, 3xxx at the carrier or Kakao: 3104 카카오톡 미사용자, 3043 전원
 * 꺼짐, …). A 알림톡 the provider fell back from is marked `replacement` (대체 발송 여부), or stored as the
 * SMS/LMS it went as.
 */
export function reportOf(message: StoredMessage): DeliveryReport {
  const code = message.statusCode ?? ''
  const channel: MessageChannel =
    message.type === 'LMS' || message.type === 'MMS'
      ? 'lms'
      : message.type === 'SMS' || message.replacement === true
        ? 'sms'
        : 'alimtalk'
  if (code === '' || code === '2000' || code === '3000') return { status: 'waiting' }
  if (code === '4000') return { status: 'delivered', channel }
  return { status: 'undelivered', channel, code }
}

export function solapiTransport(settings: SolapiSettings): MessageTransport {
  if (settings.baseUrl) standIn(settings.baseUrl)
  const service = new SolapiMessageService(settings.apiKey, settings.apiSecret)

  async function send(message: Parameters<SolapiMessageService['send']>[0], channel: MessageChannel) {
    try {
      // showMessageList: the answer names the message's id beside the group's.
      const answer = await service.send(message, { showMessageList: true })
      return {
        status: 'sent',
        channel,
        groupId: answer.groupInfo.groupId,
        messageId: answer.messageList?.[0]?.messageId,
      } satisfies SendOutcome as SendOutcome
    } catch (error) {
      return outcomeOfError(error, channel)
    }
  }

  const transport: MessageTransport = {
    async reports(messageIds) {
      try {
        const answer = await service.getMessages({ messageIds, limit: messageIds.length })
        const reports = new Map<string, DeliveryReport>()
        for (const [key, message] of Object.entries(answer.messageList))
          reports.set(message.messageId ?? key, reportOf(message))
        return reports
      } catch (error) {
        const outcome = outcomeOfError(error, 'alimtalk')
        return outcome.status === 'sent' ? new Map() : outcome
      }
    },
    sms(to, text) {
      const type = eucKrBytes(text) > smsMaxBytes ? 'LMS' : 'SMS'
      return send({ to, from: settings.sender, text, type }, type === 'LMS' ? 'lms' : 'sms')
    },
    async alimtalk(to, templateId, variables, { smsFallback, fallbackText }: AlimtalkOptions) {
      if (!settings.pfId)
        throw new Error('알림톡 needs KAKAO_PFID (readConfig refuses a template without it)')
      const outcome = await send(
        {
          to,
          from: settings.sender,
          // The provider's own fallback, should the 알림톡 not reach the phone, sends this text.
          text: fallbackText,
          kakaoOptions: { pfId: settings.pfId, templateId, variables, disableSms: !smsFallback },
        },
        'alimtalk',
      )
      if (outcome.status !== 'refused' || !smsFallback || accountWide.has(outcome.reason)) return outcome
      // Refused before it was taken (a template not approved, the channel): the provider falls back only
      // for what it accepted, so the SMS is ours to send (decision 216).
      const fallback = await transport.sms(to, fallbackText)
      return fallback.status === 'sent'
        ? { ...fallback, fellBackFrom: { reason: outcome.reason, code: outcome.code } }
        : fallback
    },
  }
  return transport
}
