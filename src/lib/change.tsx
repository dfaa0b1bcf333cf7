// A change against an earlier period, to see and to hear: `▲ 12.3%` on screen, and `작년 같은 기간보다
// 12.3% 증가` for screen readers (colour and arrows are never the only signal); `—` with nothing to compare.
import { changeText } from './format.ts'

export function Change({
  ratio,
  against,
  digits = 1,
}: {
  ratio: number | null
  against: string
  digits?: number
}) {
  const { sign, words } = changeText(ratio, digits)
  const direction = ratio === null ? '' : ratio > 0 ? ' is-up' : ratio < 0 ? ' is-down' : ''
  return (
    <span className={`change${direction}`}>
      <span aria-hidden="true">{sign}</span>
      <span className="visually-hidden">
        {against} {words}
      </span>
    </span>
  )
}
