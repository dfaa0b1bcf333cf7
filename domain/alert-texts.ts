// The wording of every alert, in Korean, as the phone shows it (docs/product.md §12): a store gone
// quiet and back to selling, devices offline, a machine in error or silent, the payment terminal, the
// morning summary, the held alerts pushed together.
// One owner for both halves: the server's alert rules push these texts, and the alerts screen's
// examples are made by the very same functions. Pure: no DOM, no Node, times in Korea time.

import { won } from './format.ts'
import { type QuietStore, quietStoreText } from './quiet.ts'

/** What a notification shows: its title and its text. */
export interface AlertText {
  title: string
  body: string
}

const koreaClock = new Intl.DateTimeFormat('ko-KR', {
  timeZone: 'Asia/Seoul',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
})
/** `HH:mm` in Korea time. */
export const koreaTime = (at: number) => koreaClock.format(at)
const number = new Intl.NumberFormat('ko-KR', { maximumFractionDigits: 0 })

/** `역삼점 · 판매 없음` / `3시간째 결제 없음 · 평소 이 시간 약 19건` */
export const quietAlert = (storeName: string, quiet: QuietStore): AlertText => ({
  title: `${storeName} · 판매 없음`,
  body: quietStoreText(quiet),
})

/** `다시 판매 시작 · 15:40 (3시간 20분 무판매)`: from the last sale before the gap to the first after it. */
export function resumeText(since: number, resumedAt: number) {
  const minutes = Math.max(0, Math.floor((resumedAt - since) / 60_000))
  return `다시 판매 시작 · ${koreaTime(resumedAt)} (${Math.floor(minutes / 60)}시간 ${minutes % 60}분 무판매)`
}

/** `약 40분`, `약 3시간`: a span of minutes, roughly. */
const roughly = (minutes: number) => (minutes < 60 ? `약 ${minutes}분` : `약 ${Math.round(minutes / 60)}시간`)

/**
 * What the alerts screen tells of a store's quiet alert (docs/product.md §12): how long a silence at its
 * usual daytime rate takes before it speaks (its own threshold), and for a store too small for a push,
 * that the morning summary says it; null (too little history): that it says nothing yet.
 */
export function quietAfterText(quietAfter: { minutes: number; push: boolean } | null) {
  if (quietAfter === null) return '이 매장은 판매 기록이 아직 짧아 판매 없음을 알리지 않습니다.'
  const span = roughly(quietAfter.minutes)
  return quietAfter.push
    ? `이 매장은 ${span} 판매가 없으면 알려드립니다.`
    : `이 매장은 판매가 하루 20건 미만이라 ${span} 판매가 없으면 아침 요약에서 알려드립니다.`
}

/** The quiet alert's replacement when sales resume (same tag): `역삼점 · 판매 재개`. */
export const resumedAlert = (storeName: string, since: number, resumedAt: number): AlertText => ({
  title: `${storeName} · 판매 재개`,
  body: resumeText(since, resumedAt),
})

/**
 * A store's outage (decision 180): one device by its name, one with others (`‘카운터 옆 결제기’ 외 1대가`), or
 * every device of the store by their number (`단말기 2대 모두 13:50부터 응답하지 않습니다.`); since the
 * last heartbeat of the first of them.
 */
export const deviceOfflineAlert = (
  storeName: string,
  silent: { device: string; more?: number } | { devices: number },
  since: number,
): AlertText => ({
  title: `${storeName} · 단말기 연결 끊김`,
  body:
    'device' in silent
      ? `‘${silent.device}’${silent.more ? ` 외 ${silent.more}대` : ''}가 ${koreaTime(since)}부터 응답하지 않습니다.`
      : `단말기 ${silent.devices}대 모두 ${koreaTime(since)}부터 응답하지 않습니다.`,
})

/** `1시간 5분`, `15분`: a span of whole minutes. */
const span = (minutes: number) =>
  minutes < 60 ? `${minutes}분` : `${Math.floor(minutes / 60)}시간${minutes % 60 ? ` ${minutes % 60}분` : ''}`

/** The store's devices dropping again and again (decision 181): one alert instead of a push each time. */
export const deviceUnstableAlert = (storeName: string, episodes: number): AlertText => ({
  title: `${storeName} · 연결이 불안정합니다`,
  body: `최근 1시간 동안 단말기 연결이 ${episodes}번 끊겼습니다. 전원과 인터넷 연결을 확인해 주세요.`,
})

/**
 * The outage's replacement when its devices are heard again (same tag, decision 182): `다시 연결됨 · 14:05
 * (15분 끊김) · 밀린 판매 3건 받음`, from the last heartbeat before to the return, and the sales made in
 * that span that the devices delivered on their return.
 */
export const deviceReturnAlert = (
  storeName: string,
  since: number,
  back: number,
  queued: number,
): AlertText => ({
  title: `${storeName} · 단말기 다시 연결됨`,
  body: `다시 연결됨 · ${koreaTime(back)} (${span(Math.max(0, Math.floor((back - since) / 60_000)))} 끊김) · ${
    queued > 0 ? `밀린 판매 ${number.format(queued)}건 받음` : '밀린 판매 없음'
  }`,
})

/** A machine as an alert names it: its name (the owner's, else the one its devices report). */
export interface AlertMachine {
  name: string
  kind: 'washer' | 'dryer' | 'other' | null
}

/** `세탁기`, `건조기`, `기계`: what a machine of a kind is called in a sentence. */
export const machineKindWord = (kind: AlertMachine['kind']) =>
  kind === 'washer' ? '세탁기' : kind === 'dryer' ? '건조기' : '기계'

/** A machine's error from its heartbeats (`E21`), since `since`. */
export const machineErrorAlert = (
  storeName: string,
  machine: AlertMachine,
  code: string | null,
  since: number,
): AlertText => ({
  title: `${storeName} · ${machine.name} 고장`,
  body: `${machine.name}이(가) ${koreaTime(since)}부터 고장 상태입니다${code ? ` (${code})` : ''}.`,
})

/**
 * A machine silent while the others of its kind sell: `세탁기 3 · 5시간째 판매 없음 · 같은 시간 다른 세탁기 14회`
 * (its name, the whole hours since its last sale, the others' sales since then).
 */
export const machineSilentAlert = (
  storeName: string,
  machine: AlertMachine,
  silentHours: number,
  othersSales: number,
): AlertText => ({
  title: `${storeName} · 기계 판매 없음`,
  body: `${machine.name} · ${silentHours}시간째 판매 없음 · 같은 시간 다른 ${machineKindWord(machine.kind)} ${othersSales}회`,
})

/** A silent machine's alert replaced when it sells again (same tag): `역삼점 · 세탁기 3 판매 재개`. */
export const machineResumedAlert = (
  storeName: string,
  machine: AlertMachine,
  since: number,
  resumedAt: number,
): AlertText => ({
  title: `${storeName} · ${machine.name} 판매 재개`,
  body: resumeText(since, resumedAt),
})

/** The payment terminal down since `since` (its devices said so), or payments failing with no sale after them. */
export const terminalAlert = (
  storeName: string,
  cause: { down: true } | { failedPayments: number },
  since: number,
): AlertText => ({
  title: `${storeName} · 카드 단말기 이상`,
  body:
    'down' in cause
      ? `카드 단말기가 ${koreaTime(since)}부터 결제를 받지 못합니다.`
      : `${koreaTime(since)}부터 결제 실패 ${cause.failedPayments}건, 그 뒤 판매가 없습니다.`,
})

/** `25분`, `2시간 5분`: how long an outage lasted. */
function lasted(from: number, to: number) {
  const minutes = Math.max(0, Math.floor((to - from) / 60_000))
  return minutes < 60 ? `${minutes}분` : `${Math.floor(minutes / 60)}시간 ${minutes % 60}분`
}

/** A machine's error alert replaced (same tag) when it works again: `세탁기 3이(가) 15:10부터 다시 작동합니다 (38분 고장).` */
export const machineFixedAlert = (
  storeName: string,
  machine: AlertMachine,
  since: number,
  fixedAt: number,
): AlertText => ({
  title: `${storeName} · ${machine.name} 정상`,
  body: `${machine.name}이(가) ${koreaTime(fixedAt)}부터 다시 작동합니다 (${lasted(since, fixedAt)} 고장).`,
})

/** The terminal's alert replaced (same tag) when it takes payments again: it says ok, or a card sale came. */
export const terminalBackAlert = (
  storeName: string,
  cause: { down: true; since: number } | { failedPayments: true },
  backAt: number,
): AlertText => ({
  title: `${storeName} · 카드 단말기 정상`,
  body:
    'down' in cause
      ? `카드 단말기가 ${koreaTime(backAt)}부터 다시 결제를 받습니다 (${lasted(cause.since, backAt)} 중단).`
      : `${koreaTime(backAt)}에 다시 결제되었습니다.`,
})

/** Alerts held in quiet hours and pushed together when they end: one notification listing their titles. */
export const heldAlertsAlert = (titles: string[]): AlertText => ({
  title: `방해 금지 시간 동안의 알림 ${titles.length}개`,
  body: titles.join('\n'),
})

/** One store's line of the morning summary: yesterday's figures and the month's so far. */
export interface StoreSummary {
  name: string
  sum: number
  count: number
  usualSum: number | null
  monthSum: number
  previousMonthSum: number | null
  quietEpisodes: number
  /** The counts the line compares when the owner hides won amounts from the member (docs/product.md §15). */
  usualCount?: number | null
  monthCount?: number
  previousMonthCount?: number | null
  /** False: the member does not see the store's won amounts, and the line names none. */
  money?: boolean
}

/** `평소보다 8% 많음`, `평소와 같음`, `지난달과 같음`; null without a usual. */
function against(value: number, usual: number | null, word: '평소' | '지난달') {
  if (usual === null || usual === 0) return null
  const percent = Math.round(((value - usual) / usual) * 100)
  if (percent === 0) return `${word}${word === '평소' ? '와' : '과'} 같음`
  return `${word}보다 ${Math.abs(percent)}% ${percent > 0 ? '많음' : '적음'}`
}
const inBrackets = (text: string | null) => (text ? ` (${text})` : '')

/** `어제 매출 · 3월 15일 · 매장 2곳` for the UTC day `day` (the app's day that just ended). */
export function summaryTitle(day: number, stores: number) {
  const date = new Date(day)
  return `어제 매출 · ${date.getUTCMonth() + 1}월 ${date.getUTCDate()}일 · 매장 ${stores}곳`
}

/**
 * `역삼점 198,000원 66건 (평소와 같음) · 이번 달 2,970,000원 (지난달과 같음) · 판매 없음 1번`; for a member
 * who does not see the store's won amounts, its counts only: `역삼점 66건 (평소와 같음) · 이번 달 990건 (지난달과 같음)`.
 */
export function summaryLine(store: StoreSummary) {
  const month = store.monthCount ?? 0
  const parts =
    store.money === false
      ? [
          `${store.name} ${number.format(store.count)}건${inBrackets(against(store.count, store.usualCount ?? null, '평소'))}`,
          `이번 달 ${number.format(month)}건${inBrackets(against(month, store.previousMonthCount ?? null, '지난달'))}`,
        ]
      : [
          `${store.name} ${won(store.sum)} ${number.format(store.count)}건${inBrackets(against(store.sum, store.usualSum, '평소'))}`,
          `이번 달 ${won(store.monthSum)}${inBrackets(against(store.monthSum, store.previousMonthSum, '지난달'))}`,
        ]
  if (store.quietEpisodes > 0) parts.push(`판매 없음 ${store.quietEpisodes}번`)
  return parts.join(' · ')
}

/** The morning summary's notification: one for all the user's stores, at most 8 lines and `외 n곳`. */
export function summaryMessage(day: number, stores: StoreSummary[]): AlertText {
  const lines = stores.map(summaryLine)
  const shown = lines.slice(0, 8)
  if (lines.length > shown.length) shown.push(`외 ${lines.length - shown.length}곳`)
  return { title: summaryTitle(day, stores.length), body: shown.join('\n') }
}
