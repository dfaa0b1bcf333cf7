// Sends the sign-in code. `console` prints one line to standard output (development, demos, tests);
// `webhook` POSTs { to, text } as JSON to an SMS gateway with a shared secret in X-Webhook-Secret.
import type { Config } from '../config.ts'

export interface SmsSender {
  send(to: string, text: string): Promise<void>
}

export class SmsError extends Error {}

export const consoleSms: SmsSender = {
  async send(to, text) {
    process.stdout.write(`SMS to ${to}: ${text}\n`)
  },
}

export function webhookSms(url: string, secret: string, timeoutMs = 10_000): SmsSender {
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

export const smsFromConfig = (sms: Config['sms']): SmsSender =>
  sms.provider === 'webhook' ? webhookSms(sms.url, sms.secret) : consoleSms

export const codeText = (code: string, ttlSeconds: number) =>
  `[빨래방 매출] 인증번호 ${code} (${Math.round(ttlSeconds / 60)}분 안에 입력해 주세요)`
