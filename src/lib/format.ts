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
