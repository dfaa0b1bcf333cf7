import { render, screen } from '@testing-library/react'
import type uPlot from 'uplot'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { LineChart } from '../../src/charts/line-chart.tsx'

/** The charts uPlot was asked to make: their options and data (uPlot itself draws on a canvas). */
const made = vi.hoisted(() => [] as { options: uPlot.Options; data: uPlot.AlignedData }[])
vi.mock('uplot', () => {
  class FakePlot {
    data: uPlot.AlignedData
    constructor(options: uPlot.Options, data: uPlot.AlignedData) {
      made.push({ options, data })
      this.data = data
    }
    static paths = { spline: () => () => null }
    setData(data: uPlot.AlignedData) {
      this.data = data
      made.push({ options: made.at(-1)?.options as uPlot.Options, data })
    }
    destroy() {}
  }
  return { default: FakePlot }
})

/** Gives the chart's box a width, so that the chart is made (happy-dom lays nothing out). */
function withWidth(width: number) {
  const spy = vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(width)
  return () => spy.mockRestore()
}

afterEach(() => {
  made.length = 0
})

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

describe('a line chart of the first day of a month, and of a month in progress', () => {
  it('draws a point with no neighbour as a point (a line through one point draws nothing)', () => {
    const restore = withWidth(360)
    try {
      render(
        <LineChart
          title="이번 달 매출"
          labels={['1일', '2일', '3일']}
          values={[5000, null, null]}
          comparison={{ label: '11월', values: [100, 200, 300] }}
          xLegend="날짜"
          yLegend="매출(원)"
          formatValue={(value) => `${value}원`}
          formatTick={String}
          summary="합계 5000원"
        />,
      )
    } finally {
      restore()
    }
    const chart = made.at(-1)
    const filter = chart?.options.series[1]?.points?.filter
    expect(typeof filter).toBe('function')
    const lone = (filter as (u: uPlot, index: number, show: boolean) => number[] | null)(
      { data: chart?.data } as uPlot,
      1,
      false,
    )
    expect(lone).toEqual([0])
  })

  it('draws the month in progress apart, dashed to its estimate, and its row says so', () => {
    const restore = withWidth(360)
    try {
      render(
        <LineChart
          title="올해 매출"
          labels={['10월', '11월', '12월']}
          values={[3000, 4000, 500]}
          valuesLabel="2026년"
          counts={[30, 40, 5]}
          comparison={{ label: '2025년', values: [2000, 2500, 2600] }}
          inProgress={{ index: 2, estimate: 4200.4 }}
          xLegend="월"
          yLegend="매출(원)"
          formatValue={(value) => `${value}원`}
          formatTick={String}
          summary="2026년 합계 7500원"
        />,
      )
    } finally {
      restore()
    }
    const chart = made.at(-1)
    expect(chart?.data.slice(1)).toEqual([
      [3000, 4000, null],
      [2000, 2500, 2600],
      [null, 4000, 4200.4],
      [null, null, 500],
    ])
    expect(chart?.options.series[3]?.dash).toEqual([6, 4])
    const rows = screen.getAllByRole('row').map((row) => row.textContent)
    expect(rows.at(-1)).toBe('12월(진행 중) 500원 · 예상 4200원5건2600원')
    expect(rows.at(-2)).toBe('11월4000원40건2500원')
  })
})
