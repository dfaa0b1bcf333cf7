// Which channels an alert goes by (docs/product.md §12, decision 230): each person chooses per store and
// per kind push, 알림톡 (`kakao`), both, or none (the kind off). A kind never chosen is by push, but the
// morning summary of a person with no push subscription is by 알림톡 when the server can send it. A
// 알림톡 chosen for a kind the server has no template for (any more) goes by push instead.
import type { AlertChannels } from '../../contract/alert-channels.ts'
import type { AlertKind } from '../../contract/api.ts'

/** A kind's channel when on. */
export type Chosen = 'push' | 'kakao' | 'both'

/** Every kind, in the alerts screen's order (the settings, the channels, the team screen's members' alerts). */
export const alertKinds = [
  'quiet',
  'deviceOffline',
  'machineError',
  'machineSilent',
  'paymentTerminal',
  'morningSummary',
] as const satisfies readonly AlertKind[]

/** The kinds this server can send by 알림톡: those with a template (none without a transport). */
export type KakaoKinds = ReadonlySet<AlertKind>

/** What the channels of one person and store read: the choices stored, and whether they have a push subscription. */
export interface ChannelChoice {
  channels: Record<string, Chosen>
  hasPush: boolean
}

/** The kind's channel: the one chosen, else its default. */
export function chosenChannel(choice: ChannelChoice, kind: AlertKind, kakaoKinds: KakaoKinds): Chosen {
  return (
    choice.channels[kind] ??
    (kind === 'morningSummary' && !choice.hasPush && kakaoKinds.has(kind) ? 'kakao' : 'push')
  )
}

/** The channels an alert of this kind goes by. */
export function routesOf(choice: ChannelChoice, kind: AlertKind, kakaoKinds: KakaoKinds) {
  const chosen = chosenChannel(choice, kind, kakaoKinds)
  const kakao = kakaoKinds.has(kind) && chosen !== 'push'
  return { push: chosen !== 'kakao' || !kakao, kakao }
}

/** The answer's channels: `none` for a kind off. */
export function channelsAnswer(
  choice: ChannelChoice,
  on: Record<AlertKind, boolean>,
  kakaoKinds: KakaoKinds,
): AlertChannels {
  const entries = alertKinds.map((kind) => [
    kind,
    on[kind] ? chosenChannel(choice, kind, kakaoKinds) : 'none',
  ])
  return Object.fromEntries(entries) as AlertChannels
}
