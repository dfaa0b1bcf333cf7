// The selected month's sales by weekday and hour of the device's clock: a 7 × 24 grid shaded by amount,
// the busiest hours named in words, and the same figures as a table for screen readers.
import { useId } from 'react'
import { type BusiestHours, weekdayLabels } from '../../../domain/hour-grid.ts'

/** The hours of a day, 0 to 23. */
const hours = Array.from({ length: 24 }, (_, hour) => hour)

export const busiestText = (busiest: BusiestHours | null) =>
  busiest
    ? `가장 바쁜 시간: ${weekdayLabels[busiest.weekday]} ${busiest.fromHour}–${busiest.toHour}시`
    : '이 달에는 아직 매출이 없습니다'

export function HoursSection({
  month,
  grid,
  busiest,
  formatValue,
}: {
  month: number
  /** grid[weekday][hour]: sums, weekday 0 = Monday, hours of the device's clock. */
  grid: number[][]
  busiest: BusiestHours | null
  formatValue(value: number): string
}) {
  const headingId = useId()
  const max = Math.max(0, ...grid.flat())
  return (
    <section className="hours" aria-labelledby={headingId}>
      <h2 id={headingId} className="hours-title">
        {month}월 요일·시간대별 매출
      </h2>
      <p className="hours-busiest">{busiestText(busiest)}</p>
      <div className="hours-grid" aria-hidden="true">
        <span />
        {hours.map((hour) => (
          <span key={hour} className="hours-hour">
            {hour % 6 === 0 ? hour : ''}
          </span>
        ))}
        {weekdayLabels.map((label, weekday) => (
          <Row key={label} label={label} sums={grid[weekday] ?? []} max={max} formatValue={formatValue} />
        ))}
      </div>
      <div className="visually-hidden">
        <table>
          <caption>{month}월 요일·시간대별 매출 (기기 시각)</caption>
          <thead>
            <tr>
              <th scope="col">요일</th>
              {hours.map((hour) => (
                <th key={hour} scope="col">
                  {hour}시
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {weekdayLabels.map((label, weekday) => (
              <tr key={label}>
                <th scope="row">{label}</th>
                {hours.map((hour) => (
                  <td key={hour}>{formatValue(grid[weekday]?.[hour] ?? 0)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  )
}

function Row({
  label,
  sums,
  max,
  formatValue,
}: {
  label: string
  sums: number[]
  max: number
  formatValue(value: number): string
}) {
  return (
    <>
      <span className="hours-day">{label}</span>
      {hours.map((hour) => {
        const sum = sums[hour] ?? 0
        // Shaded by the share of the busiest cell; an hour with sales is never left blank.
        const share = max > 0 && sum > 0 ? Math.max(0.08, sum / max) : 0
        return (
          <span
            key={hour}
            className="hours-cell"
            style={share > 0 ? { backgroundColor: `rgba(22, 104, 220, ${share.toFixed(2)})` } : undefined}
            title={`${label} ${hour}시 ${formatValue(sum)}`}
          />
        )
      })}
    </>
  )
}
