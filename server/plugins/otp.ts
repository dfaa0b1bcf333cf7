// Sign-in codes and their limits (server/sign-in/otp.ts), sent in the background by the SMS outbox.
// At close the codes in flight are sent (or given up on, within smsRetry.closeWaitMs) first.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { recordMessageFailure } from '../messages/failures.ts'
import { createOtp, type Otp } from '../sign-in/otp.ts'
import { type SmsOutbox, type SmsRetry, type SmsSender, smsFromConfig, smsOutbox } from '../sign-in/sms.ts'

declare module 'fastify' {
  interface FastifyInstance {
    otp: Otp
    smsOutbox: SmsOutbox
  }
}

export interface OtpOptions {
  /** The server's secret (JWT_SECRET), which the codes' HMAC and the known-device credentials are keyed from. */
  secret: string
  /** The SMS sender; by default the one SMS_PROVIDER names. */
  sms?: SmsSender | undefined
  /** How sending retries, and how long closing waits for it (tests shorten it). */
  smsRetry?: SmsRetry | undefined
}

export const otpPlugin = fp(
  async (app: FastifyInstance, { secret, sms, smsRetry }: OtpOptions) => {
    const outbox = smsOutbox(sms ?? smsFromConfig(app.config), app.log, smsRetry, (failure) =>
      recordMessageFailure(app.db, app.log, { ...failure, purpose: 'signIn', at: app.now() }),
    )
    app.decorate('otp', createOtp(app.db, secret, app.now, app.config.limits, outbox))
    // The team's invites (server/team/invites.ts) go out through the same outbox.
    app.decorate('smsOutbox', outbox)
    app.addHook('onClose', async () => outbox.close())
  },
  { name: 'otp', dependencies: ['database'] },
)
