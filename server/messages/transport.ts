// The message transport beside Web Push: SMS/LMS and KakaoTalk 알림톡 to a person's own phone number.
// One implementation today (server/messages/solapi.ts); the sign-in codes use its `sms`, the alert
// channels its `alimtalk`. Every call answers a typed outcome and never throws for what the provider
// or the network did: `sent`, `refused` (the provider said no: retrying the same request cannot help)
// or `failed` (5xx, no answer: the caller retries with backoff) (docs/product.md decision 215).

/** Why the provider refused a message, named: what an operator must fix. */
export type RefusalReason =
  /** The API key or secret is wrong, revoked, or the signature was refused (also a clock far off). */
  | 'badKey'
  /** The sender number (SOLAPI_SENDER) is not registered with the provider. */
  | 'unregisteredSender'
  /** The 알림톡 template is unknown, not approved yet, or does not match the variables; or the channel. */
  | 'templateNotApproved'
  /** The provider account's balance is too low. */
  | 'insufficientBalance'
  /** The recipient's number is not one the provider can send to. */
  | 'badRecipient'
  /** Anything else the provider refused (its code says what). */
  | 'other'

/** What a message went out as: the provider decides SMS or LMS by length, we ask for the one we mean. */
export type MessageChannel = 'sms' | 'lms' | 'alimtalk'

export type SendOutcome =
  | {
      status: 'sent'
      channel: MessageChannel
      /** The provider's group id (one per request) and message id. */
      groupId: string
      messageId: string | undefined
      /** A 알림톡 the provider refused, sent instead as this SMS/LMS (the caller allowed it). */
      fellBackFrom?: { reason: RefusalReason; code: string }
    }
  | {
      status: 'refused'
      channel: MessageChannel
      reason: RefusalReason
      code: string
      detail: string
      httpStatus?: number
    }
  | { status: 'failed'; channel: MessageChannel; code: string; detail: string; httpStatus?: number }

/** A 알림톡's fallback: whether the provider (and we, on a refusal) may send it as SMS/LMS, and its text. */
export interface AlimtalkOptions {
  smsFallback: boolean
  /** The SMS/LMS text when it falls back: the template's text with its variables filled in. */
  fallbackText: string
}

/**
 * A message's final report from the provider (decision 251): `waiting` (accepted, no final word yet, or
 * not found), `delivered` (the phone got it; `channel` sms/lms when the provider fell back from the
 * 알림톡 to SMS), `undelivered` (the provider's code says why: 카카오톡 미사용자, 전원 꺼짐, …).
 */
export type DeliveryReport =
  | { status: 'waiting' }
  | { status: 'delivered'; channel: MessageChannel }
  | { status: 'undelivered'; channel: MessageChannel; code: string }

export interface MessageTransport {
  /**
   * The reports of messages it accepted, by message id; a query the provider refused or that failed
   * answers that outcome instead (asked again later).
   */
  reports(
    messageIds: string[],
  ): Promise<Map<string, DeliveryReport> | Extract<SendOutcome, { status: 'refused' | 'failed' }>>
  /** An SMS, or an LMS when the text is over 90 bytes in EUC-KR. */
  sms(to: string, text: string): Promise<SendOutcome>
  /** A 알림톡 of an approved template (KAKAO_TEMPLATE_…) with its variables (`name` for `#{name}`). */
  alimtalk(
    to: string,
    templateId: string,
    variables: Record<string, string>,
    options: AlimtalkOptions,
  ): Promise<SendOutcome>
}

/** Bytes of `text` in EUC-KR, as Korean carriers count them: ASCII 1, everything else 2. */
export const eucKrBytes = (text: string) => {
  let bytes = 0
  for (const char of text) bytes += (char.codePointAt(0) ?? 0) < 0x80 ? 1 : 2
  return bytes
}

/** The longest SMS; a longer text goes as LMS (up to 2,000 bytes). */
export const smsMaxBytes = 90

/** A phone number as logs and the failure list show it: the last four digits only. */
export const maskPhone = (phone: string) => `${'*'.repeat(Math.max(0, phone.length - 4))}${phone.slice(-4)}`
