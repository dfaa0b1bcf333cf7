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
  // Coloured by what is shown, not by the raw ratio: a change that rounds to `0.0%` is no rise or fall.
  const direction = sign.startsWith('▲') ? ' is-up' : sign.startsWith('▼') ? ' is-down' : ''
  return (
    <span className={`change${direction}`}>
      <span aria-hidden="true">{sign}</span>
      <span className="visually-hidden">
        {against} {words}
      </span>
    </span>
  )
}
