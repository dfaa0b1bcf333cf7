const number = new Intl.NumberFormat('ko-KR')
const compact = new Intl.NumberFormat('ko-KR', { notation: 'compact', maximumFractionDigits: 1 })

/** `1,234,000원` */
export const won = (amount: number) => `${number.format(amount)}원`
/** `123.4만`: short enough for an axis. */
export const compactNumber = (amount: number) => compact.format(amount)
