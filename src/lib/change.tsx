// A change against an earlier period, to see and to hear: `▲ 12.3%` on screen, and `작년 같은 기간보다
// 12.3% 증가` for screen readers (colour and arrows are never the only signal); `—` with nothing to compare.
import { changeText } from '../../domain/format.ts'

export function Change({
  ratio,
  against,
  digits = 1,
}: {
  ratio: number | null
  against: string
  digits?: number
}) {
  const { sign, words, trend } = changeText(ratio, digits)
  return (
    <span className={trend ? `change is-${trend}` : 'change'}>
      <span aria-hidden="true">{sign}</span>
      <span className="visually-hidden">
        {against} {words}
      </span>
    </span>
  )
}
