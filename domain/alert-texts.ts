// The wording of every alert, in Korean, as the phone shows it (docs/product.md §12): a store gone
// quiet and back to selling, devices offline, the morning summary, the held alerts pushed together.
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

/** The quiet alert's replacement when sales resume (same tag): `역삼점 · 판매 재개`. */
export const resumedAlert = (storeName: string, since: number, resumedAt: number): AlertText => ({
  title: `${storeName} · 판매 재개`,
  body: resumeText(since, resumedAt),
})

/**
 * Devices not answering since `since`: one device by its name, or every device of the store at once by
 * their number (`단말기 2대 모두 13:50부터 응답하지 않습니다.`).
 */
export const deviceOfflineAlert = (
  storeName: string,
  silent: { device: string } | { devices: number },
  since: number,
): AlertText => ({
  title: `${storeName} · 단말기 연결 끊김`,
  body:
    'device' in silent
      ? `‘${silent.device}’가 ${koreaTime(since)}부터 응답하지 않습니다.`
      : `단말기 ${silent.devices}대 모두 ${koreaTime(since)}부터 응답하지 않습니다.`,
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

/** `역삼점 198,000원 66건 (평소와 같음) · 이번 달 2,970,000원 (지난달과 같음) · 판매 없음 1번` */
export function summaryLine(store: StoreSummary) {
  const parts = [
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
