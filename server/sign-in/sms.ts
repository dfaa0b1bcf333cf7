// Sends the sign-in code. `console` prints one line to standard output (development, demos, tests);
// `webhook` POSTs { to, text } as JSON to an SMS gateway with a shared secret in X-Webhook-Secret;
// `solapi` sends an SMS through SOLAPI (server/messages/solapi.ts). Codes go out through an outbox in
// the background, so that neither the time nor the status of a code request tells a registered number
// from another.
import { backoff } from '../../domain/backoff.ts'
import type { Config } from '../config.ts'
import type { FailedOutcome } from '../messages/failures.ts'
import type { SolapiSettings } from '../messages/solapi.ts'
import { type MessageTransport, maskPhone } from '../messages/transport.ts'

export interface SmsSender {
  send(to: string, text: string): Promise<void>
}

class SmsError extends Error {}

export const consoleSms: SmsSender = {
  async send(to, text) {
    process.stdout.write(`SMS to ${to}: ${text}\n`)
  },
}

function webhookSms(url: string, secret: string, timeoutMs = 10_000): SmsSender {
  return {
    async send(to, text) {
      let response: Response
      try {
        response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-webhook-secret': secret },
          body: JSON.stringify({ to, text }),
          signal: AbortSignal.timeout(timeoutMs),
        })
      } catch (error) {
        throw new SmsError(`SMS webhook unreachable: ${(error as Error).message}`)
      }
      await response.body?.cancel()
      if (!response.ok) throw new SmsError(`SMS webhook answered ${response.status}`)
    },
  }
}

/** What a message provider answered other than `sent`: a refusal is not retried. */
export class SmsProviderError extends Error {
  constructor(readonly outcome: FailedOutcome) {
    super(
      `the SMS provider ${outcome.status === 'refused' ? `refused it (${outcome.reason})` : 'failed'}: ${outcome.code}${outcome.httpStatus ? ` (HTTP ${outcome.httpStatus})` : ''}`,
    )
  }
}

/** The sign-in code by SMS through a message transport (given, or made at the first send). */
export function transportSms(transport: MessageTransport | (() => Promise<MessageTransport>)): SmsSender {
  let made: Promise<MessageTransport> | undefined
  return {
    async send(to, text) {
      made ??= typeof transport === 'function' ? transport() : Promise.resolve(transport)
      const outcome = await (await made).sms(to, text)
      if (outcome.status !== 'sent') throw new SmsProviderError(outcome)
    },
  }
}

/** SOLAPI's SDK (and the `effect` library under it) is loaded at the first code, only by a server that uses it. */
const solapiSms = (settings: SolapiSettings) =>
  transportSms(() => import('../messages/solapi.ts').then(({ solapiTransport }) => solapiTransport(settings)))

export function smsFromConfig({ sms, messages }: Pick<Config, 'sms' | 'messages'>): SmsSender {
  if (sms.provider === 'webhook') return webhookSms(sms.url, sms.secret)
  if (sms.provider === 'solapi' && messages.solapi) return solapiSms(messages.solapi)
  return consoleSms
}

export const codeText = (code: string, ttlSeconds: number) =>
  `[빨래방 매출] 인증번호 ${code} (${Math.round(ttlSeconds / 60)}분 안에 입력해 주세요)`

/** How the outbox retries and how long closing the server waits for it. */
export interface SmsRetry {
  /** Tries in all, the first included. */
  attempts: number
  /** The wait before the second try; each further wait is twice the one before. */
  firstDelayMs: number
  /** How long closing waits for sends in flight before giving up on them. */
  closeWaitMs: number
}

/** 4 tries over about 7 s (waits of 1, 2 and 4 s), well within a code's 3-minute life. */
const defaultSmsRetry: SmsRetry = { attempts: 4, firstDelayMs: 1000, closeWaitMs: 15_000 }

export interface SmsOutbox {
  /** Starts sending in the background; the caller's answer never waits for, or tells of, the gateway. */
  send(to: string, text: string): void
  /** Stops retrying and waits for sends in flight, at most `closeWaitMs`. */
  close(): Promise<void>
}

/** A message provider's refusal, or its failure given up on: called once a code, to log and keep it. */
export type OnProviderFailure = (failure: {
  to: string
  outcome: FailedOutcome
  attempts: number
}) => Promise<void>

/**
 * Sends in the background with bounded retries and exponential backoff, and logs every failed try and
 * a send given up, never the text (it holds the code). A provider's refusal (a bad key, an unregistered
 * sender, no balance) is not retried: it goes to `onProviderFailure` at once, as does a provider's
 * failure given up on.
 */
export function smsOutbox(
  sender: SmsSender,
  log: { warn(object: object, message: string): void; error(object: object, message: string): void },
  retry: SmsRetry = defaultSmsRetry,
  onProviderFailure?: OnProviderFailure,
): SmsOutbox {
  const inFlight = new Set<Promise<void>>()
  const waiting = new Set<() => void>()
  let closing = false

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer)
        waiting.delete(wake)
        resolve()
      }
      const timer = setTimeout(wake, ms)
      waiting.add(wake)
    })

  async function deliver(to: string, text: string) {
    const context = { to: maskPhone(to) }
    for (let attempt = 1; ; attempt++) {
      try {
        await sender.send(to, text)
        return
      } catch (error) {
        const reason = String((error as Error)?.message ?? error).replaceAll(text, '[text]')
        const provider = error instanceof SmsProviderError ? error.outcome : undefined
        if (provider?.status === 'refused' || attempt >= retry.attempts || closing) {
          if (provider && onProviderFailure) {
            const outcome = { ...provider, detail: provider.detail.replaceAll(text, '[text]') }
            await onProviderFailure({ to, outcome, attempts: attempt })
          } else
            log.error({ ...context, attempts: attempt, reason }, 'sending the sign-in code failed; gave up')
          return
        }
        log.warn({ ...context, attempt, reason }, 'sending the sign-in code failed; will retry')
        await pause(backoff(attempt - 1, { firstMs: retry.firstDelayMs }))
      }
    }
  }

  return {
    send(to, text) {
      const task = deliver(to, text).finally(() => inFlight.delete(task))
      inFlight.add(task)
    },
    async close() {
      closing = true
      for (const wake of [...waiting]) wake()
      let timer: NodeJS.Timeout | undefined
      const bound = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, retry.closeWaitMs)
      })
      await Promise.race([Promise.allSettled([...inFlight]), bound])
      clearTimeout(timer)
    },
  }
}
