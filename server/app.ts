// Builds the Fastify app: capabilities first, then the API routes, then the web app. Nothing here
// listens on a port, so tests use `app.inject` on exactly what production runs.
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import compress from '@fastify/compress'
import helmet from '@fastify/helmet'
import swagger from '@fastify/swagger'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyRequest } from 'fastify'
import { type AlertRules, createAlertRules } from './alerts/rules.ts'
import { type StoreViews, storeViews } from './alerts/view.ts'
import type { Config } from './config.ts'
import type { Database } from './db/client.ts'
import { isDeviceKey } from './devices/keys.ts'
import { sweepDeviceState } from './devices/sweep.ts'
import {
  ApiError,
  answerServerRefusals,
  handleClientError,
  handleError,
  messages,
  serializeError,
} from './errors.ts'
import { createLive, type Live } from './live/live.ts'
import {
  streamHeartbeatMs as defaultHeartbeatMs,
  sendStallMs as defaultStallMs,
  watchStalledOutput,
} from './live/stream.ts'
import { createPush, type Push } from './push/deliver.ts'
import { vapidKeys } from './push/keys.ts'
import { type PushTransport, type VapidKeys, webPushTransport } from './push/transport.ts'
import { changesRoutes } from './routes/changes.ts'
import { deviceKeyRoutes, devicePairRoutes } from './routes/device.ts'
import { deviceOwnerRoutes } from './routes/devices.ts'
import { overviewRoutes } from './routes/overview.ts'
import { pushRoutes } from './routes/push.ts'
import { storeRoutes } from './routes/store.ts'
import { profileRoutes, signInRoutes } from './routes/user.ts'
import { createOtp, type Otp } from './sign-in/otp.ts'
import { sweepSignInState } from './sign-in/rate-limits.ts'
import { type SmsRetry, type SmsSender, smsFromConfig, smsOutbox } from './sign-in/sms.ts'
import { createTokens, jwtSecret, type Tokens } from './sign-in/tokens.ts'
import { declareCommonStatuses, requireBearer } from './statuses.ts'
import { type StoreAccess, storeAccess } from './store-access.ts'
import { type UsageCache, usageCache } from './usage/cache.ts'
import { pruneChanges } from './usage/changes.ts'
import { type StoresOverview, storesOverview } from './usage/overview.ts'
import { buildValidator } from './validation.ts'
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
  /** The live changes' safety poll period (server/live/safety-poll.ts); tests shorten it. */
  livePollMs?: number
  /** How often a streamed held call with nothing to say sends a comment (server/live/stream.ts); tests shorten it. */
  streamHeartbeatMs?: number
  /** How long an answer's output may stay queued with no byte leaving before its connection goes (server/live/stalled-output.ts); tests shorten it. */
  sendStallMs?: number
  /** How pushes go out, given the VAPID keys; by default web-push (tests hand a fake or trust a local service). */
  pushTransport?: (keys: VapidKeys, subject: string) => PushTransport
  /** How often the alert rules are evaluated (server/alerts/rules.ts); 0: never by itself (tests call it). */
  alertsEveryMs?: number
}

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
    db: Database['db']
    now: () => Date
    tokens: Tokens
    otp: Otp
    storeAccess: StoreAccess
    usageCache: UsageCache
    storesOverview: StoresOverview
    storeViews: StoreViews
    live: Live
    /** How often a streamed held call with nothing to say sends a comment. */
    streamHeartbeatMs: number
    push: Push & { keys(): Promise<VapidKeys> }
    alertRules: AlertRules
  }
  interface FastifyRequest {
    /** The signed-in user, set by the guard of the signed-in routes. */
    userId: number
    /** The sign-in of the bearer token (its family id), set with userId. */
    signInId: string
    /** When the bearer token expires (ms since the epoch, on the app's clock), set with userId. */
    accessExpiresAt: number
  }
}

/**
 * Fastify's form of TRUST_PROXY. A hop count becomes a function of the hop (0 is the socket's peer):
 * Fastify's own number form trusts no hop at all, and `true` trusts every hop, so that any client
 * could name its own address in X-Forwarded-For.
 */
function fastifyTrustProxy(trust: Config['trustProxy']) {
  if (!trust) return false
  if ('hops' in trust) return (_address: string, hop: number) => hop < trust.hops
  return trust.addresses
}

/** Query parameters whose values may be written to logs: none of them is a secret. */
const loggableParams = new Set(['year'])

function decodedName(name: string) {
  try {
    return decodeURIComponent(name.replaceAll('+', ' '))
  } catch {
    return undefined
  }
}

/**
 * The address as request logs show it. Logs must never hold a refresh token, which the contract puts
 * in the query string, and the query parser decodes names (`?%74oken=` is `token`) and also starts a
 * query at `#`. So the query starts at the first `?` or `#`, and every value is replaced unless its
 * decoded name is one known to be harmless; a bare name that is not known is replaced whole.
 */
export function redactUrl(url: string) {
  const start = url.search(/[?#]/)
  if (start < 0) return url
  const pairs = url
    .slice(start + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=')
      const name = equals < 0 ? pair : pair.slice(0, equals)
      if (loggableParams.has(decodedName(name) ?? '')) return pair
      return equals < 0 ? (pair === '' ? '' : '[redacted]') : `${name}=[redacted]`
    })
  return `${url.slice(0, start + 1)}${pairs.join('&')}`
}

/**
 * The hashes of index.html's inline scripts (the first painter, which the build writes into it and
 * which starts the app: build/index-html.ts), for the content security policy: the page's own, and no
 * other inline script. Read again whenever index.html changes (a new build deployed in place).
 */
function inlineScriptHashes(webDir: string) {
  const file = path.join(webDir, 'index.html')
  let read: { changedAt: number; hashes: string[] } | undefined
  const hash = (code: string) => `'sha256-${createHash('sha256').update(code).digest('base64')}'`
  return () => {
    if (!existsSync(file)) return []
    const changedAt = statSync(file).mtimeMs
    if (read?.changedAt !== changedAt) {
      const scripts = readFileSync(file, 'utf8').matchAll(/<script(\s[^>]*)?>([\s\S]*?)<\/script>/g)
      const hashes = [...scripts]
        .filter(([, attributes]) => !/\ssrc=/.test(attributes ?? ''))
        .map(([, , code]) => hash(code ?? ''))
      read = { changedAt, hashes }
    }
    return read.hashes
  }
}

const contentSecurityPolicy = (webDir: string) => {
  const hashes = inlineScriptHashes(webDir)
  return {
    directives: {
      defaultSrc: ["'self'"],
      // The page's hashes where a page may be answered: the API's answers are never run as documents,
      // so its calls (the hot path) look at no file.
      scriptSrc: [
        (request: { url?: string }) =>
          request.url?.startsWith('/api/') ? "'self'" : ["'self'", ...hashes()].join(' '),
      ],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:', 'blob:'],
      fontSrc: ["'self'"],
      connectSrc: ["'self'"],
      workerSrc: ["'self'", 'blob:'],
      manifestSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      // The product is often served over plain http on a shop's own network.
      upgradeInsecureRequests: null,
    },
  }
}

/** How often old rate-limit events, locks and codes are deleted. */
const sweepEveryMs = 60 * 60 * 1000

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
}: AppOptions) {
  // With a certificate (TLS_CERT_FILE, TLS_KEY_FILE): HTTPS, HTTP/2 where the client speaks it (every
  // browser does) and HTTP/1.1 otherwise. HTTP/2 compresses the headers an open screen repeats every
  // 25 s (docs/product.md decision 100). Typed as the HTTP/1.1 server: the routes see the same
  // request and reply either way, and what differs (connection headers, closing) is handled below.
  const protocol = config.tls
    ? ({ http2: true, https: { ...config.tls, allowHTTP1: true } } as unknown as Record<string, never>)
    : {}
  const app = Fastify({
    ...protocol,
    logger: {
      level: config.logLevel,
      ...(logStream ? { stream: logStream } : {}),
      serializers: {
        err: serializeError,
        req: (request) => ({
          method: request.method,
          url: redactUrl(request.url),
          remoteAddress: request.ip,
        }),
      },
    },
    trustProxy: fastifyTrustProxy(config.trustProxy),
    bodyLimit: 16 * 1024,
    schemaController: { compilersFactory: { buildValidator } },
    // A bad percent-encoding or an over-long path parameter, found before any route runs.
    frameworkErrors: handleError,
    // The HTTP parser's own refusals (malformed request line, headers too large).
    clientErrorHandler: handleClientError,
    // Fastify's own answer while closing is an English body; the hook below gives the contract's.
    return503OnClosing: false,
    // Node answers an HTTP/1.1 request without Host with a bare 400; the hook below answers it instead.
    http: { requireHostHeader: false },
  }).withTypeProvider<TypeBoxTypeProvider>()
  answerServerRefusals(app.server)
  // HTTP/2 sessions, told to end (GOAWAY) at close: a session keeps the server open while it lives,
  // and has no `Connection: close` to end it with its last answer. Its streams still finish.
  const sessions = new Set<import('node:http2').ServerHttp2Session>()
  if (config.tls) {
    app.server.on('session', (session: import('node:http2').ServerHttp2Session) => {
      sessions.add(session)
      session.once('close', () => sessions.delete(session))
    })
  }

  // A client that stops reading loses its connection after sendStallMs instead of pinning its answer (decision 158).
  const stalled = watchStalledOutput(sendStallMs)
  app.addHook('onRequest', async (_request, reply) => stalled.watch(reply.raw))
  app.addHook('onClose', async () => stalled.close())

  const secret = jwtSecret(config)
  app.decorate('config', config)
  app.decorate('db', database.db)
  app.decorate('now', now)
  app.decorate('tokens', createTokens(database.db, secret, now, config.limits))
  const outbox = smsOutbox(sms ?? smsFromConfig(config.sms), app.log, smsRetry)
  app.decorate('otp', createOtp(database.db, secret, now, config.limits, outbox))
  app.decorate('storeAccess', storeAccess(database.db))
  app.decorate('usageCache', usageCache(database.db, { log: app.log }))
  // The view of every store the alert rules load and keep current (decision 131); the stores overview
  // answers from it where it holds a store (decision 138).
  const views = storeViews(database.db)
  app.decorate('storeViews', views)
  app.decorate('storesOverview', storesOverview(database.db, { views }))
  const tokens = app.tokens
  app.decorate(
    'live',
    createLive({
      database,
      now,
      log: app.log,
      pollMs: livePollMs,
      onSignInEnded: (signInId) => tokens.signInEnded(signInId),
    }),
  )
  await app.live.start(database.connectionString)
  // The VAPID keys are read (or generated) when first needed, once; a failed read is tried again.
  let keys: Promise<VapidKeys> | undefined
  const pushKeys = () => {
    keys ??= vapidKeys(database.db, config.push.keys).catch((error: unknown) => {
      keys = undefined
      throw error
    })
    return keys
  }
  let transport: Promise<PushTransport> | undefined
  const push = createPush({
    db: database.db,
    transport: () => {
      transport ??= pushKeys().then((vapid) => pushTransport(vapid, config.push.subject))
      return transport
    },
    now,
    log: app.log,
  })
  app.decorate('push', { ...push, keys: pushKeys })
  // The alert rules, every minute on every instance; the database decides what is sent (decision 102).
  // Their view of every store (server/alerts/view.ts): the hours the rules read, kept current.
  app.decorate('alertRules', createAlertRules({ db: database.db, push, log: app.log, views }))
  let evaluating: Promise<unknown> | undefined
  const evaluateAlerts = () => {
    evaluating ??= app.alertRules
      .evaluate(now())
      .catch((error: unknown) => app.log.error({ err: error }, 'alert evaluation failed'))
      .finally(() => {
        evaluating = undefined
      })
  }
  const evaluator = alertsEveryMs > 0 ? setInterval(evaluateAlerts, alertsEveryMs).unref() : undefined
  // The first evaluation at start, not a minute after it (decision 139): it loads the view of every
  // store the stores overview answers from, so the first overviews after a start are not each store's
  // years bucketed. Not awaited: at 10,000 stores the load takes seconds; answers fall back meanwhile.
  if (alertsEveryMs > 0) app.addHook('onReady', async () => evaluateAlerts())
  app.decorateRequest('userId', 0)
  app.decorateRequest('signInId', '')
  app.decorateRequest('accessExpiresAt', 0)
  app.decorate('streamHeartbeatMs', streamHeartbeatMs)
  // Every instance sweeps (old rate events, forgotten locks, expired codes); a sweep another instance
  // already made deletes nothing.
  const sweep = async () => {
    try {
      await sweepSignInState(database.db, now())
      await sweepDeviceState(database.db, now())
      await pruneChanges(database.db, now())
      await push.sweep(now())
    } catch (error) {
      app.log.error({ err: error }, 'sweep failed')
    }
  }
  const sweeper = setInterval(sweep, sweepEveryMs).unref()
  app.addHook('onReady', sweep)
  // One hook, in this order (Fastify runs separate onClose hooks last-registered first): codes in
  // flight are sent (or given up on, within smsRetry.closeWaitMs), usage answers waiting to be
  // recompressed are dropped and the running one stops at its next piece, and only then does the
  // database close.
  app.addHook('onClose', async () => {
    await outbox.close()
    await app.usageCache.close()
    await app.live.close()
    clearInterval(sweeper)
    clearInterval(evaluator)
    await evaluating
    await database.close()
  })
  app.setErrorHandler(handleError)
  app.addHook('onRoute', declareCommonStatuses)
  // While closing, a request that still arrives (on a kept-alive connection, or pipelined) is told
  // to come back, in the contract's form; Fastify adds `Connection: close`, so it goes elsewhere.
  let closing = false
  app.addHook('preClose', () => {
    closing = true
    // Held changes calls answer now (what they last read), so the server's close does not wait for them.
    app.live.endHeld()
    for (const session of sessions) session.close()
  })
  app.addHook('onRequest', async (_request, reply) => {
    if (closing) reply.code(503).header('retry-after', '1').send({ message: messages.unavailable })
  })
  // An answer sent while closing (a call that was in flight, a held changes call) ends its connection:
  // a kept-alive one would hold the server's close until its idle timeout (72 s). HTTP/2 has no such
  // header (Node refuses it): its sessions are told to end (GOAWAY) above.
  app.addHook('onSend', async (request, reply) => {
    if (closing && request.raw.httpVersionMajor === 1) reply.header('connection', 'close')
  })
  // HTTP/1.1 requires Host (RFC 9112 §3.2): Node's own check, turned off above, answers without a body.
  app.addHook('onRequest', async (request) => {
    const { httpVersionMajor, httpVersionMinor } = request.raw
    if (httpVersionMajor === 1 && httpVersionMinor === 1 && !request.headers.host)
      throw new ApiError(400, messages.badRequest)
  })

  await app.register(helmet, {
    contentSecurityPolicy: contentSecurityPolicy(config.webDir),
    referrerPolicy: { policy: 'no-referrer' },
  })
  await app.register(compress, { threshold: 1024 })
  await app.register(swagger, {
    openapi: {
      info: { title: 'Laundry sales API', version: 'v0' },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          deviceKey: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'device key (dk_ and 43 characters), from POST /api/v0/device/pair',
          },
        },
      },
    },
  })

  async function authenticate(request: FastifyRequest) {
    const bearer = request.headers.authorization?.match(/^Bearer\s+(\S+)$/i)?.[1]
    if (!bearer) throw new ApiError(401, messages.loginRequired)
    // A device's key reads nothing (docs/product.md §11).
    if (isDeviceKey(bearer)) throw new ApiError(401, messages.deviceKeyElsewhere)
    const claims = await app.tokens.verifyAccess(bearer)
    request.userId = claims.userId
    request.signInId = claims.familyId
    request.accessExpiresAt = claims.expiresAt * 1000
  }

  await app.register(
    async (api) => {
      // Answers that carry tokens or personal data are never stored by caches unless a route says so.
      api.addHook('onSend', async (_request, reply) => {
        if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store')
      })
      api.get('/openapi.json', { schema: { hide: true } }, () => app.swagger())
      await api.register(
        async (v0) => {
          await v0.register(signInRoutes)
          await v0.register(devicePairRoutes)
          await v0.register(deviceKeyRoutes)
          await v0.register(async (guarded) => {
            guarded.addHook('onRoute', requireBearer)
            guarded.addHook('onRequest', authenticate)
            await guarded.register(profileRoutes)
            await guarded.register(storeRoutes)
            await guarded.register(overviewRoutes)
            await guarded.register(changesRoutes)
            await guarded.register(deviceOwnerRoutes)
            await guarded.register(pushRoutes)
          })
        },
        { prefix: '/v0' },
      )
      api.setNotFoundHandler((_request, reply) => reply.code(404).send({ message: messages.notFound }))
    },
    { prefix: '/api' },
  )
  await app.register(web, { webDir: config.webDir, imageDir: config.imageDir })
  return app
}

export type App = Awaited<ReturnType<typeof buildApp>>
