const number = new Intl.NumberFormat('ko-KR')
const compact = new Intl.NumberFormat('ko-KR', { notation: 'compact', maximumFractionDigits: 1 })

/** `1,234,000원` */
export const won = (amount: number) => `${number.format(amount)}원`
/** `123.4만`: short enough for an axis. */
export const compactNumber = (amount: number) => compact.format(amount)

const fetchedAt = new Intl.DateTimeFormat('ko-KR', {
  month: 'long',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
})
/** `11월 22일 23:05` */
export const dayAndTime = (time: number) => fetchedAt.format(time)

/**
 * What figures kept from an earlier fetch say of themselves when their latest refresh was answered
 * with an error (a server error, not a missing connection): `새 매출을 불러오지 못했습니다 · 11월 22일
 * 23:05 기준`. One wording for the sales screen and the overview's rows, so neither passes old figures
 * off as current.
 */
export const failedRefreshNote = (fetchedAt: number) =>
  `새 매출을 불러오지 못했습니다 · ${dayAndTime(fetchedAt)} 기준`

/** `1,234건` */
export const salesCount = (count: number) => `${number.format(count)}건`

const clock = new Intl.DateTimeFormat('ko-KR', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
/** `22:47`, on the device's clock. */
export const timeOfDay = (time: number) => clock.format(time)

/**
 * A change as a ratio (0.123: 12.3 % more) in signs and in words: `▲ 12.3%` to see, and
 * `12.3% 증가` for screen readers (colour and arrows are never the only signal), with its direction as
 * shown (a change that rounds to nothing has none). Null: `—`, no data.
 */
export function changeText(
  ratio: number | null,
  digits = 1,
): { sign: string; words: string; trend?: 'up' | 'down' } {
  if (ratio === null || !Number.isFinite(ratio)) return { sign: '—', words: '비교할 자료 없음' }
  const percent = `${Math.abs(ratio * 100).toFixed(digits)}%`
  if (Math.abs(ratio * 100) < 0.5 * 10 ** -digits)
    return { sign: `0${digits ? `.${'0'.repeat(digits)}` : ''}%`, words: '변동 없음' }
  return ratio > 0
    ? { sign: `▲ ${percent}`, words: `${percent} 증가`, trend: 'up' }
    : { sign: `▼ ${percent}`, words: `${percent} 감소`, trend: 'down' }
}
