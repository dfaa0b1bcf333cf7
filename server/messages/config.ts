// The message transport's settings (SOLAPI, 알림톡), read with the rest of the configuration
// (server/config.ts spreads `messagesEnv` into its table and calls `readMessages`); docs/operations.md
// "Messages by SMS and 알림톡" says how an operator gets each value.
import { Type } from 'typebox'
import type { AlertKind } from '../../contract/api.ts'

/** The 알림톡 template of each alert kind (contract/api.ts AlertKind), one variable each. */
export const kakaoTemplateVariables = [
  ['KAKAO_TEMPLATE_QUIET', 'quiet'],
  ['KAKAO_TEMPLATE_DEVICE_OFFLINE', 'deviceOffline'],
  ['KAKAO_TEMPLATE_MACHINE_ERROR', 'machineError'],
  ['KAKAO_TEMPLATE_MACHINE_SILENT', 'machineSilent'],
  ['KAKAO_TEMPLATE_PAYMENT_TERMINAL', 'paymentTerminal'],
  ['KAKAO_TEMPLATE_MORNING_SUMMARY', 'morningSummary'],
] as const satisfies readonly (readonly [string, AlertKind])[]

const TemplateId = Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }))

/** The settings' part of the configuration table. */
export const messagesEnv = {
  // SOLAPI (server/messages/, docs/operations.md "Messages by SMS and 알림톡"): the API key and secret,
  // the registered sender number, the Kakao business channel and one 알림톡 template per alert kind.
  SOLAPI_API_KEY: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9]{8,64}$' })),
  SOLAPI_API_SECRET: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9]{16,128}$' })),
  SOLAPI_SENDER: Type.Optional(Type.String({ pattern: '^[0-9]{8,11}$' })),
  KAKAO_PFID: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{4,64}$' })),
  KAKAO_TEMPLATE_QUIET: TemplateId,
  KAKAO_TEMPLATE_DEVICE_OFFLINE: TemplateId,
  KAKAO_TEMPLATE_MACHINE_ERROR: TemplateId,
  KAKAO_TEMPLATE_MACHINE_SILENT: TemplateId,
  KAKAO_TEMPLATE_PAYMENT_TERMINAL: TemplateId,
  KAKAO_TEMPLATE_MORNING_SUMMARY: TemplateId,
  // 알림톡 and SMS a person gets a day (00:00 UTC, as the alerts' caps); beyond, alerts stay in the list.
  MESSAGES_PER_USER_PER_DAY: Type.Integer({ default: 20, minimum: 1, maximum: 1000 }),
  // Tests only (refused with NODE_ENV=production): SOLAPI's address stood in on this machine (e2e).
  SOLAPI_BASE_URL: Type.Optional(Type.String({ pattern: '^https?://[^/\\s]+$' })),
}

type MessagesEnv = { [Name in keyof typeof messagesEnv]?: string | number | undefined } & {
  NODE_ENV: string
  SMS_PROVIDER: string
  MESSAGES_PER_USER_PER_DAY: number
}

const solapiVariables = ['SOLAPI_API_KEY', 'SOLAPI_API_SECRET', 'SOLAPI_SENDER'] as const

/** What is wrong with the settings: half a configuration, or what is set for nothing. */
function problemsOf(env: MessagesEnv, templateNames: string[], users: string[]) {
  const problems: string[] = []
  if (templateNames.length > 0 && !env.KAKAO_PFID) {
    problems.push(
      `${templateNames.join(', ')} set but KAKAO_PFID is not: a 알림톡 template belongs to a Kakao business channel. Set KAKAO_PFID (the channel's pfId, in the SOLAPI console), or remove the templates.`,
    )
  }
  if (env.KAKAO_PFID && templateNames.length === 0) {
    problems.push(
      `KAKAO_PFID is set but no 알림톡 template is: set the approved template id of each alert kind to send by 알림톡 (${kakaoTemplateVariables.map(([name]) => name).join(', ')}), or remove KAKAO_PFID.`,
    )
  }
  const missing = solapiVariables.filter((name) => !env[name])
  if (users.length > 0 && missing.length > 0) {
    problems.push(
      `${users.join(' and ')} needs ${missing.join(', ')}: the API key and secret from the SOLAPI console and a sender number registered there, digits only (docs/operations.md, "Messages by SMS and 알림톡").`,
    )
  }
  const setForNothing = solapiVariables.filter((name) => env[name])
  if (users.length === 0 && setForNothing.length > 0) {
    problems.push(
      `${setForNothing.join(', ')} set but nothing sends through SOLAPI: set SMS_PROVIDER=solapi (sign-in codes by SMS) and/or KAKAO_PFID with its templates (alerts by 알림톡), or remove them.`,
    )
  }
  if (env.SOLAPI_BASE_URL && env.NODE_ENV === 'production') {
    problems.push(
      'SOLAPI_BASE_URL is for tests only (the provider stood in on this machine): remove it when NODE_ENV=production.',
    )
  }
  return problems
}

/**
 * SOLAPI and 알림톡 (server/messages/): everything they need, or the problems' text naming what is
 * missing or what is set for nothing. Half a configuration is refused at start, not found out at the
 * first sign-in code or alert. A channel with only some kinds' templates is fine: the others go by push
 * only (docs/product.md decision 218).
 */
export function readMessages(env: MessagesEnv) {
  const given = kakaoTemplateVariables.filter(([name]) => env[name])
  const templates: Partial<Record<AlertKind, string>> = Object.fromEntries(
    given.map(([name, kind]) => [kind, env[name]]),
  )
  const users = [
    ...(env.SMS_PROVIDER === 'solapi' ? ['SMS_PROVIDER=solapi'] : []),
    ...(env.KAKAO_PFID ? ['KAKAO_PFID'] : []),
  ]
  const problems = problemsOf(
    env,
    given.map(([name]) => name),
    users,
  )
  if (problems.length > 0) return problems.join('\n  ')
  const { SOLAPI_API_KEY: apiKey, SOLAPI_API_SECRET: apiSecret, SOLAPI_SENDER: sender } = env
  const solapi =
    users.length > 0 && apiKey && apiSecret && sender
      ? { apiKey: String(apiKey), apiSecret: String(apiSecret), sender: String(sender) }
      : undefined
  return {
    /** SOLAPI's credentials and sender: set whenever SMS_PROVIDER=solapi or KAKAO_PFID is. */
    solapi,
    /** 알림톡: the channel and the template of each kind that has one. */
    kakao: env.KAKAO_PFID ? { pfId: String(env.KAKAO_PFID), templates } : undefined,
    /** 알림톡 and SMS a person gets a day. */
    perUserPerDay: env.MESSAGES_PER_USER_PER_DAY,
    /** Tests only: SOLAPI's address stood in. */
    baseUrl: env.SOLAPI_BASE_URL === undefined ? undefined : String(env.SOLAPI_BASE_URL),
  }
}

export type MessagesConfig = Exclude<ReturnType<typeof readMessages>, string>

/** The kinds this server sends by 알림톡: a template each, and the transport to send them. */
export const kakaoKindsOf = (messages: MessagesConfig): ReadonlySet<AlertKind> =>
  new Set(messages.kakao && messages.solapi ? (Object.keys(messages.kakao.templates) as AlertKind[]) : [])
