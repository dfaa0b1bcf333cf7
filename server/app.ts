// Builds the Fastify app, and reads as the server's table of contents: the capabilities, each a named
// plugin on those it depends on (server/plugins/), then the rules for every request, then the API's
// routes (server/routes/api.ts), then the web app. Nothing here listens on a port, so tests use
// `app.inject` on exactly what production runs.
import compress from '@fastify/compress'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify from 'fastify'
import type { Config } from './config.ts'
import type { Database } from './db/client.ts'
import { answerServerRefusals, handleError } from './errors.ts'
import { streamHeartbeatMs as defaultHeartbeatMs, sendStallMs as defaultStallMs } from './live/stream.ts'
import { alertsPlugin } from './plugins/alerts.ts'
import { connectionsPlugin } from './plugins/connections.ts'
import { databasePlugin } from './plugins/database.ts'
import { livePlugin } from './plugins/live.ts'
import { openapiPlugin } from './plugins/openapi.ts'
import { otpPlugin } from './plugins/otp.ts'
import { pushPlugin } from './plugins/push.ts'
import { securityHeadersPlugin } from './plugins/security-headers.ts'
import { stalledOutputPlugin } from './plugins/stalled-output.ts'
import { storeAccessPlugin } from './plugins/store-access.ts'
import { storesOverviewPlugin } from './plugins/stores-overview.ts'
import { sweepPlugin } from './plugins/sweep.ts'
import { tokensPlugin } from './plugins/tokens.ts'
import { usageCachePlugin } from './plugins/usage-cache.ts'
import { type PushTransport, type VapidKeys, webPushTransport } from './push/transport.ts'
import { apiRoutes } from './routes/api.ts'
import { serverOptions } from './server-options.ts'
import type { SmsRetry, SmsSender } from './sign-in/sms.ts'
import { jwtSecret } from './sign-in/tokens.ts'
import { declareCommonStatuses } from './statuses.ts'
import { web } from './web.ts'

export interface AppOptions {
  config: Config
  database: Database
  /** Where logs go; standard output when not given. */
  logStream?: { write(line: string): void }
  /** The clock every time limit reads; tests move it. */
  now?: () => Date
  /** The SMS sender; by default the one SMS_PROVIDER names. */
  sms?: SmsSender
  /** How sending retries, and how long closing waits for it (tests shorten it). */
  smsRetry?: SmsRetry
  /** The live changes' safety poll period (server/live/live.ts); tests shorten it. */
  livePollMs?: number
  /** How often a streamed held call with nothing to say sends a comment (server/live/stream.ts); tests shorten it. */
  streamHeartbeatMs?: number
  /** How long an answer's output may stay queued with no byte leaving before its connection goes (server/live/stream.ts); tests shorten it. */
  sendStallMs?: number
  /** How pushes go out, given the VAPID keys; by default web-push (tests hand a fake or trust a local service). */
  pushTransport?: (keys: VapidKeys, subject: string) => PushTransport
  /** How often the alert rules are evaluated (server/alerts/schedule.ts); 0: never by itself (tests call it). */
  alertsEveryMs?: number
  /** How a 알림톡 that failed is tried again (tests shorten it). */
  messageRetry?: { attempts: number; firstDelayMs: number }
}

export async function buildApp({
  config,
  database,
  logStream,
  now = () => new Date(),
  sms,
  smsRetry,
  livePollMs,
  streamHeartbeatMs = defaultHeartbeatMs,
  sendStallMs = defaultStallMs,
  pushTransport = (keys, subject) => webPushTransport({ keys, subject }),
  alertsEveryMs = 60_000,
  messageRetry,
}: AppOptions) {
  const app = Fastify(serverOptions(config, logStream)).withTypeProvider<TypeBoxTypeProvider>()
  answerServerRefusals(app.server)
  await app.register(stalledOutputPlugin, { sendStallMs })

  // The capabilities. Fastify closes them last-registered first, so each is registered after what it
  // depends on and closes before it: at close, codes in flight are sent (or given up on, within
  // smsRetry.closeWaitMs), usage answers waiting to be recompressed are dropped, the live listening
  // stops, the sweeps and the alert rules stop (an evaluation under way is awaited), and only then
  // does the database close.
  const secret = jwtSecret(config)
  await app.register(databasePlugin, { config, database, now })
  await app.register(tokensPlugin, { secret })
  await app.register(storeAccessPlugin)
  await app.register(storesOverviewPlugin)
  await app.register(pushPlugin, { transport: pushTransport })
  await app.register(alertsPlugin, { everyMs: alertsEveryMs, messageRetry })
  await app.register(sweepPlugin)
  await app.register(livePlugin, { database, pollMs: livePollMs, streamHeartbeatMs })
  await app.register(usageCachePlugin)
  await app.register(otpPlugin, { secret, sms, smsRetry })

  // Every request: errors in the contract's form, the statuses every route may answer, closing and
  // Host, the security headers, compression, the OpenAPI document.
  app.setErrorHandler(handleError)
  app.addHook('onRoute', declareCommonStatuses)
  await app.register(connectionsPlugin, { http2: Boolean(config.tls) })
  await app.register(securityHeadersPlugin, { webDir: config.webDir })
  await app.register(compress, { threshold: 1024 })
  await app.register(openapiPlugin)

  await app.register(apiRoutes, { prefix: '/api' })
  await app.register(web, { webDir: config.webDir, imageDir: config.imageDir })
  return app
}
