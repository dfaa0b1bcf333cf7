// Long by nature: the configuration table, every setting with its default, its bounds and its check.
// Every setting of the server, read once from the environment and checked, with one clear error
// listing every variable that is wrong. docs/operations.md's configuration table mirrors this schema.
import { readFileSync, realpathSync } from 'node:fs'
import path from 'node:path'
import ipaddr from 'ipaddr.js'
import { type Static, Type } from 'typebox'
import { Value } from 'typebox/value'
import { embeddedFolderName, isBesideEmbedded } from './db/data-names.ts'
import { messagesEnv, readMessages } from './messages/config.ts'

const Int = (fallback: number, minimum: number, maximum = Number.MAX_SAFE_INTEGER) =>
  Type.Integer({ default: fallback, minimum, maximum })

const EnvSchema = Type.Object({
  NODE_ENV: Type.String({ default: 'development' }),
  PORT: Int(3000, 0, 65535),
  HOST: Type.String({ default: 'localhost', minLength: 1 }),
  DATA_DIR: Type.String({ default: 'data', minLength: 1 }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  IMAGE_DIR: Type.Optional(Type.String({ minLength: 1 })),
  WEB_DIR: Type.String({ default: 'dist', minLength: 1 }),
  JWT_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  SEED_DEMO: Type.Enum(['0', '1'], { default: '1' }),
  // With demo data, a live demo device per demo store (server/demo-live.ts); 0 keeps the database still.
  DEMO_LIVE: Type.Enum(['0', '1'], { default: '1' }),
  SMS_PROVIDER: Type.Enum(['console', 'webhook', 'solapi'], { default: 'console' }),
  SMS_WEBHOOK_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  SMS_WEBHOOK_SECRET: Type.Optional(Type.String({ minLength: 16 })),
  // The app's address as the team's invites name it in their SMS (docs/operations.md); by default the
  // address the owner's own request came to.
  APP_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$' })),
  ...messagesEnv,
  TRUST_PROXY: Type.String({ default: '0', minLength: 1 }),
  LOG_LEVEL: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' }),
  CODE_TTL_SECONDS: Int(180, 30, 3600),
  CODE_MAX_TRIES: Int(5, 1, 100),
  // Code requests for one phone: per requesting client in any hour and any 24 hours, and from all clients
  // together in any 24 hours (the SMS cost of a number). One client must not be able to use the phone's
  // whole day, or it could stop the owner elsewhere from asking: readConfig refuses settings where
  // min(per client per day, per client per hour x 24) is not below the phone's daily cap.
  CODE_REQUESTS_PER_PHONE_PER_HOUR: Int(5, 1),
  CODE_REQUESTS_PER_PHONE_PER_CLIENT_PER_DAY: Int(10, 1),
  CODE_REQUESTS_PER_PHONE_PER_DAY: Int(30, 2),
  CODE_REQUESTS_PER_IP_PER_HOUR: Int(20, 1),
  SIGN_ATTEMPTS_PER_IP_PER_HOUR: Int(20, 1),
  SIGN_FAILURES_BEFORE_LOCK: Int(10, 1),
  // Each failure is a guess at a 4-digit code, and 100 a day is a 1 % chance a day: failures from
  // unknown devices and from known devices (whose own window this second one is) are bounded apart, so
  // readConfig refuses settings where the two add up to more than 100.
  SIGN_FAILURES_PER_PHONE_PER_DAY: Int(80, 1, 100),
  SIGN_FAILURES_PER_PHONE_KNOWN_DEVICES_PER_DAY: Int(20, 1, 100),
  LOCK_MINUTES: Int(30, 1),
  LOCK_MAX_HOURS: Int(24, 1),
  ACCESS_TOKEN_SECONDS: Int(900, 10),
  REFRESH_TOKEN_DAYS: Int(14, 1, 365),
  // A store's devices (docs/product.md §11): requests per device key in any minute (batches and
  // heartbeats together), pairing attempts per client address in any hour, devices an owner may add to
  // one store in any hour.
  DEVICE_REQUESTS_PER_MINUTE: Int(120, 1),
  PAIR_ATTEMPTS_PER_IP_PER_HOUR: Int(20, 1),
  DEVICES_ADDED_PER_STORE_PER_HOUR: Int(20, 1),
  SNAPSHOT_MINUTES: Int(15, 1, 1440),
  SNAPSHOTS_KEPT: Int(8, 1, 1000),
  SNAPSHOT_DIR: Type.Optional(Type.String({ minLength: 1 })),
  // The embedded database's watchdog (server/db/watchdog.ts): a statement running longer ends the process; 0: off.
  DB_STALL_SECONDS: Int(60, 0, 86400),
  // Web Push (server/push/, docs/operations.md "Alerts and Web Push"): the VAPID keys (both or neither;
  // without them the server generates a pair once and keeps it in the database), the contact the push
  // services may write to, and push services beyond the known ones (comma list of https origins).
  VAPID_PUBLIC_KEY: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{87}$' })),
  VAPID_PRIVATE_KEY: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' })),
  VAPID_SUBJECT: Type.Optional(Type.String({ pattern: '^(mailto:|https://)' })),
  PUSH_ALLOWED_ORIGINS: Type.String({ default: '' }),
  // HTTPS with HTTP/2 (and HTTP/1.1 for older clients): a certificate chain and its private key, PEM.
  TLS_CERT_FILE: Type.Optional(Type.String({ minLength: 1 })),
  TLS_KEY_FILE: Type.Optional(Type.String({ minLength: 1 })),
})
type Env = Static<typeof EnvSchema>

export class ConfigError extends Error {}

/** Wrong guesses at a 4-digit code allowed per account per day, from everyone: a 1 % chance. */
const maxGuessesPerDay = 100

/**
 * Which forwarding proxies to believe about the client's address: none (`0`), the nearest N hops (a
 * number: the socket's peer and N-1 addresses before it in X-Forwarded-For), or the proxies at these
 * addresses or networks (a comma list, e.g. `10.0.0.1, 192.168.0.0/16`), however many hops they make.
 */
export type TrustProxy = { hops: number } | { addresses: string[] } | false

function parseTrustProxy(value: string): TrustProxy | undefined {
  if (/^\d+$/.test(value)) {
    const hops = Number(value)
    return hops === 0 ? false : hops <= 100 ? { hops } : undefined
  }
  const addresses = value.split(',').map((part) => part.trim())
  // Dotted quads only: ipaddr.js would also take forms like `1.2.3` for an IPv4 address.
  const address = (text: string) => ipaddr.IPv4.isValidFourPartDecimal(text) || ipaddr.IPv6.isValid(text)
  const valid = (entry: string) => {
    const [base = '', bits, ...rest] = entry.split('/')
    if (rest.length > 0 || !address(base)) return false
    if (bits === undefined) return true
    const max = ipaddr.IPv6.isValid(base) ? 128 : 32
    return /^\d+$/.test(bits) && Number(bits) <= max
  }
  return addresses.every(valid) ? { addresses } : undefined
}

/**
 * A path as the file system resolves it: the real path (symbolic links followed) of its longest part
 * that exists, with the rest as written. Two names of one folder compare equal.
 */
function realPath(target: string): string {
  const rest: string[] = []
  let current = target
  for (;;) {
    try {
      return path.join(realpathSync(current), ...rest)
    } catch {
      const parent = path.dirname(current)
      if (parent === current) return target
      rest.unshift(path.basename(current))
      current = parent
    }
  }
}

/** Whether `a` is `b` or lies inside it. */
function within(a: string, b: string) {
  const relative = path.relative(b, a)
  return (
    relative === '' ||
    !(relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative))
  )
}

/**
 * Refuses a served folder (IMAGE_DIR under /images/, WEB_DIR at /) that is, holds or lies inside what
 * nobody may download: the embedded database (DATA_DIR/pglite and the copies a restore keeps beside it,
 * all named pglite…), the generated secret (DATA_DIR/jwt-secret) and the snapshots. Their real paths
 * are compared, so a symbolic link is no way around it. Guarded always, also with PostgreSQL: a
 * database or secret left from the embedded days holds the same records. The default IMAGE_DIR,
 * DATA_DIR/images, lies inside DATA_DIR but holds none of them.
 */
function refuseServedSecrets(served: Record<string, string>, dataDir: string, snapshotDir: string) {
  const realData = realPath(dataDir)
  const database = path.join(realData, embeddedFolderName)
  // The lock and the copies a restore keeps beside the database: pglite.lock, pglite.before-restore-….
  const besideDatabase = (real: string) =>
    within(real, realData) && isBesideEmbedded(path.relative(realData, real).split(path.sep)[0] ?? '')
  const guarded = [
    { variable: 'DATA_DIR', what: 'the embedded database', path: database },
    { variable: 'DATA_DIR', what: 'the generated secret', path: path.join(realData, 'jwt-secret') },
    { variable: 'SNAPSHOT_DIR', what: 'the database snapshots', path: realPath(snapshotDir) },
  ]
  const problems: string[] = []
  for (const [variable, folder] of Object.entries(served)) {
    const real = realPath(folder)
    const hit = besideDatabase(real)
      ? guarded[0]
      : guarded.find((entry) => within(entry.path, real) || within(real, entry.path))
    if (!hit) continue
    const source = hit.variable === 'DATA_DIR' ? dataDir : snapshotDir
    problems.push(
      `${variable}=${JSON.stringify(folder)} and ${hit.variable}=${JSON.stringify(source)}: ${variable} is served to anyone and would serve ${hit.what} (${hit.path}). Give ${variable} a folder of its own, apart from them.`,
    )
  }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`)
}

/** The VAPID subject outside production when none is set (Apple's push service refuses it: set one). */
export const defaultVapidSubject = 'mailto:push@example.com'

/**
 * Why a VAPID subject would be refused, or undefined: a `mailto:` address or an `https:` URL whose host
 * is a real name. Apple's push service answers 403 BadJwtToken to a subject at `localhost`, `.local` or
 * `.invalid` (FCM does not check, so the mistake would hide until an iPhone subscribes).
 */
export function vapidSubjectProblem(subject: string): string | undefined {
  let host: string
  if (subject.startsWith('mailto:')) {
    const address = subject.slice('mailto:'.length)
    const at = address.lastIndexOf('@')
    if (at < 1 || at === address.length - 1 || /[\s?]/.test(address)) return 'is not a mailto: address'
    host = address.slice(at + 1)
  } else if (subject.startsWith('https://')) {
    try {
      host = new URL(subject).hostname
    } catch {
      return 'is not an https: URL'
    }
  } else return 'is neither a mailto: address nor an https: URL'
  host = host.toLowerCase().replace(/\.$/, '')
  if (host === 'localhost' || /\.(localhost|local|invalid)$/.test(host) || !host.includes('.'))
    return 'names a host that Apple refuses (localhost, .local, .invalid, or no domain)'
  if (/^[\d.]+$/.test(host) || host.startsWith('[')) return 'names an address, not a domain'
  return undefined
}

/** A comma list of https origins, as `URL.origin` writes them; undefined when one is not an origin. */
function parseOrigins(value: string): string[] | undefined {
  const origins: string[] = []
  for (const part of value.split(',').map((entry) => entry.trim())) {
    if (part === '') continue
    try {
      const url = new URL(part)
      if (url.protocol !== 'https:' || url.origin !== part.replace(/\/$/, '')) return undefined
      origins.push(url.origin)
    } catch {
      return undefined
    }
  }
  return origins
}

/**
 * The certificate and key of HTTPS, read now: both files or neither, each readable and PEM, or a clear
 * error (in Korean and English) before anything starts.
 */
function readTls(certFile: string | undefined, keyFile: string | undefined) {
  if (!certFile && !keyFile) return undefined
  if (!certFile || !keyFile) {
    const [given, missing] = certFile ? ['TLS_CERT_FILE', 'TLS_KEY_FILE'] : ['TLS_KEY_FILE', 'TLS_CERT_FILE']
    throw new ConfigError(
      `${given}만 있고 ${missing}가 없습니다. HTTPS에는 인증서와 개인 키 파일이 모두 필요합니다. / ${given} is set but ${missing} is not: HTTPS needs both the certificate and its private key (PEM files); set both, or neither for plain HTTP.`,
    )
  }
  const read = (variable: string, file: string, marker: RegExp, what: string) => {
    let text: string
    try {
      text = readFileSync(file, 'utf8')
    } catch (error) {
      const reason = error instanceof Error && 'code' in error ? String(error.code) : String(error)
      throw new ConfigError(
        `${variable}=${JSON.stringify(file)}: 파일을 읽을 수 없습니다 (${reason}). / the file cannot be read (${reason}).`,
      )
    }
    if (!marker.test(text)) {
      throw new ConfigError(
        `${variable}=${JSON.stringify(file)}: PEM 형식의 ${what === 'certificate' ? '인증서' : '개인 키'}가 아닙니다. / the file is not a PEM ${what}.`,
      )
    }
    return text
  }
  return {
    cert: read('TLS_CERT_FILE', certFile, /-----BEGIN CERTIFICATE-----/, 'certificate'),
    key: read('TLS_KEY_FILE', keyFile, /-----BEGIN [A-Z ]*PRIVATE KEY-----/, 'private key'),
  }
}

function parseEnv(source: NodeJS.ProcessEnv): Env {
  const names = Object.keys(EnvSchema.properties)
  const given = Object.fromEntries(
    names
      .filter((name) => source[name] !== undefined && source[name] !== '')
      .map((name) => [name, source[name]]),
  )
  const env = Value.Convert(EnvSchema, Value.Default(EnvSchema, { ...given }))
  const problems = Value.Errors(EnvSchema, env)
    .filter((error) => error.instancePath !== '')
    .map((error) => {
      const name = error.instancePath.slice(1)
      const allowed = error.keyword === 'enum' ? ` (${error.params.allowedValues.join(', ')})` : ''
      return `${name}=${JSON.stringify(given[name])}: ${error.message}${allowed}`
    })
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`)
  return env as Env
}

export function readConfig(source: NodeJS.ProcessEnv = process.env) {
  const env = parseEnv(source)
  const production = env.NODE_ENV === 'production'
  if (production && !env.JWT_SECRET) {
    throw new ConfigError(
      'JWT_SECRET is required when NODE_ENV=production: set it to a random string of at least 32 characters (for example: openssl rand -hex 32).',
    )
  }
  if (env.SMS_PROVIDER === 'webhook' && !(env.SMS_WEBHOOK_URL && env.SMS_WEBHOOK_SECRET)) {
    throw new ConfigError(
      'SMS_PROVIDER=webhook needs SMS_WEBHOOK_URL and SMS_WEBHOOK_SECRET (at least 16 characters).',
    )
  }
  const oneClientCodesPerDay = Math.min(
    env.CODE_REQUESTS_PER_PHONE_PER_CLIENT_PER_DAY,
    env.CODE_REQUESTS_PER_PHONE_PER_HOUR * 24,
  )
  if (oneClientCodesPerDay >= env.CODE_REQUESTS_PER_PHONE_PER_DAY) {
    throw new ConfigError(
      `CODE_REQUESTS_PER_PHONE_PER_DAY=${env.CODE_REQUESTS_PER_PHONE_PER_DAY} must be more than one client can ask for a phone in a day (${oneClientCodesPerDay}: the lower of CODE_REQUESTS_PER_PHONE_PER_CLIENT_PER_DAY and CODE_REQUESTS_PER_PHONE_PER_HOUR x 24), or one client could stop the owner from asking.`,
    )
  }
  const guessesPerDay =
    env.SIGN_FAILURES_PER_PHONE_PER_DAY + env.SIGN_FAILURES_PER_PHONE_KNOWN_DEVICES_PER_DAY
  if (guessesPerDay > maxGuessesPerDay) {
    throw new ConfigError(
      `SIGN_FAILURES_PER_PHONE_PER_DAY=${env.SIGN_FAILURES_PER_PHONE_PER_DAY} and SIGN_FAILURES_PER_PHONE_KNOWN_DEVICES_PER_DAY=${env.SIGN_FAILURES_PER_PHONE_KNOWN_DEVICES_PER_DAY} must add up to at most ${maxGuessesPerDay} (${guessesPerDay}): together they bound the guesses at a 4-digit code in a day, which must stay a 1 % chance at most.`,
    )
  }
  const trustProxy = parseTrustProxy(env.TRUST_PROXY)
  if (trustProxy === undefined) {
    throw new ConfigError(
      `TRUST_PROXY=${JSON.stringify(env.TRUST_PROXY)}: expected 0, a number of proxy hops (1 behind one reverse proxy), or a comma list of proxy addresses or networks (10.0.0.1,192.168.0.0/16).`,
    )
  }
  if (Boolean(env.VAPID_PUBLIC_KEY) !== Boolean(env.VAPID_PRIVATE_KEY)) {
    throw new ConfigError(
      'VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY go together: set both (npx web-push generate-vapid-keys --json), or neither and the server generates a pair once and keeps it in the database.',
    )
  }
  const subjectProblem = env.VAPID_SUBJECT === undefined ? undefined : vapidSubjectProblem(env.VAPID_SUBJECT)
  if (production && (env.VAPID_SUBJECT === undefined || subjectProblem)) {
    throw new ConfigError(
      `VAPID_SUBJECT is required when NODE_ENV=production: a mailto: address or an https: page where the push services can reach whoever runs this server (for example mailto:owner@example.co.kr)${subjectProblem ? `; ${JSON.stringify(env.VAPID_SUBJECT)} ${subjectProblem}` : ''}.`,
    )
  }
  const pushAllowedOrigins = parseOrigins(env.PUSH_ALLOWED_ORIGINS)
  if (pushAllowedOrigins === undefined) {
    throw new ConfigError(
      `PUSH_ALLOWED_ORIGINS=${JSON.stringify(env.PUSH_ALLOWED_ORIGINS)}: expected a comma list of https origins (https://push.example.com,https://127.0.0.1:8443), with no path.`,
    )
  }
  const dataDir = path.resolve(env.DATA_DIR)
  const imageDir = path.resolve(env.IMAGE_DIR ?? path.join(dataDir, 'images'))
  const webDir = path.resolve(env.WEB_DIR)
  const snapshotDir = path.resolve(env.SNAPSHOT_DIR ?? path.join(dataDir, 'snapshots'))
  refuseServedSecrets({ IMAGE_DIR: imageDir, WEB_DIR: webDir }, dataDir, snapshotDir)
  const tls = readTls(env.TLS_CERT_FILE, env.TLS_KEY_FILE)
  const messages = readMessages(env)
  if (typeof messages === 'string') throw new ConfigError(`Invalid configuration:\n  ${messages}`)
  return {
    production,
    port: env.PORT,
    host: env.HOST,
    dataDir,
    databaseUrl: env.DATABASE_URL,
    appUrl: env.APP_URL,
    imageDir,
    webDir,
    /** Snapshots of the embedded database (unused with PostgreSQL). */
    snapshots: {
      dir: snapshotDir,
      minutes: env.SNAPSHOT_MINUTES,
      kept: env.SNAPSHOTS_KEPT,
    },
    /** Embedded database only: a statement running longer than this ends the process (0: never). */
    dbStallSeconds: env.DB_STALL_SECONDS,
    jwtSecret: env.JWT_SECRET,
    seedDemo: env.SEED_DEMO === '1',
    demoLive: env.DEMO_LIVE === '1',
    sms:
      env.SMS_PROVIDER === 'webhook'
        ? {
            provider: 'webhook' as const,
            url: env.SMS_WEBHOOK_URL ?? '',
            secret: env.SMS_WEBHOOK_SECRET ?? '',
          }
        : env.SMS_PROVIDER === 'solapi'
          ? { provider: 'solapi' as const }
          : { provider: 'console' as const },
    /** SMS and 알림톡 through SOLAPI (server/messages/). */
    messages,
    trustProxy,
    /** HTTPS with HTTP/2 and HTTP/1.1 (TLS_CERT_FILE and TLS_KEY_FILE); plain HTTP/1.1 when not given. */
    tls,
    logLevel: env.LOG_LEVEL,
    push: {
      keys:
        env.VAPID_PUBLIC_KEY && env.VAPID_PRIVATE_KEY
          ? { publicKey: env.VAPID_PUBLIC_KEY, privateKey: env.VAPID_PRIVATE_KEY }
          : undefined,
      /** Outside production, a stand-in that no push service is asked to write to. */
      subject: env.VAPID_SUBJECT ?? defaultVapidSubject,
      allowedOrigins: pushAllowedOrigins,
    },
    limits: {
      codeTtlSeconds: env.CODE_TTL_SECONDS,
      codeMaxTries: env.CODE_MAX_TRIES,
      codeRequestsPerPhonePerHour: env.CODE_REQUESTS_PER_PHONE_PER_HOUR,
      codeRequestsPerPhonePerClientPerDay: env.CODE_REQUESTS_PER_PHONE_PER_CLIENT_PER_DAY,
      codeRequestsPerPhonePerDay: env.CODE_REQUESTS_PER_PHONE_PER_DAY,
      codeRequestsPerIpPerHour: env.CODE_REQUESTS_PER_IP_PER_HOUR,
      signAttemptsPerIpPerHour: env.SIGN_ATTEMPTS_PER_IP_PER_HOUR,
      signFailuresBeforeLock: env.SIGN_FAILURES_BEFORE_LOCK,
      signFailuresPerPhonePerDay: env.SIGN_FAILURES_PER_PHONE_PER_DAY,
      signFailuresPerPhoneKnownDevicesPerDay: env.SIGN_FAILURES_PER_PHONE_KNOWN_DEVICES_PER_DAY,
      lockMinutes: env.LOCK_MINUTES,
      lockMaxHours: env.LOCK_MAX_HOURS,
      accessTokenSeconds: env.ACCESS_TOKEN_SECONDS,
      refreshTokenDays: env.REFRESH_TOKEN_DAYS,
      deviceRequestsPerMinute: env.DEVICE_REQUESTS_PER_MINUTE,
      pairAttemptsPerIpPerHour: env.PAIR_ATTEMPTS_PER_IP_PER_HOUR,
      devicesAddedPerStorePerHour: env.DEVICES_ADDED_PER_STORE_PER_HOUR,
    },
  }
}

export type Config = ReturnType<typeof readConfig>
