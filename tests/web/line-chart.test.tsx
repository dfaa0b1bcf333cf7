import { render, screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { LineChart } from '../../src/charts/line-chart.tsx'

const chart = (title: string) => (
  <LineChart
    title={title}
    labels={['1월', '2월']}
    values={[1000, 2000]}
    xLegend="월"
    yLegend="매출(원)"
    formatValue={(value) => `${value}원`}
    formatTick={String}
    summary="합계 3000원"
  />
)

describe('a line chart', () => {
  it('is a figure named by its caption, also when the title has spaces and two charts share a page', () => {
    render(
      <>
        {chart('올해 매출')}
        {chart('올해 매출')}
      </>,
    )
    const figures = screen.getAllByRole('figure', { name: '올해 매출' })
    expect(figures).toHaveLength(2)
    // Each names itself by its own caption: the ids are single tokens and unique on the page.
    const [first, second] = figures.map((figure) => figure.getAttribute('aria-labelledby') ?? '')
    expect(first).toMatch(/^\S+$/)
    expect(first).not.toBe(second)
  })
})

describe('a line chart with points to come and a comparison', () => {
  it('reads — for points not yet come, names both lines, and gives counts and the comparison per point', () => {
    render(
      <LineChart
        title="이번 달 매출"
        labels={['1일', '2일', '3일']}
        values={[1000, 0, null]}
        valuesLabel="11월"
        counts={[2, 0, null]}
        comparison={{ label: '10월', values: [500, 700, null] }}
        xLegend="날짜"
        yLegend="매출(원)"
        formatValue={(value) => `${value}원`}
        formatTick={String}
        summary="합계 1000원"
      />,
    )
    const rows = screen.getAllByRole('row').map((row) => row.textContent)
    expect(rows).toEqual([
      '날짜11월 매출(원)결제 건수10월 매출(원)',
      '1일1000원2건500원',
      '2일0원0건700원',
      '3일———',
    ])
  })
})
