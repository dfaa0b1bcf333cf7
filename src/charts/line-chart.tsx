// A line chart on uPlot: created once, then fed new data (setData) and new widths (setSize). Behind it,
// for screen readers and keyboards, the same figures as a table.
import { useEffect, useId, useMemo, useRef, useState } from 'react'
import uPlot from 'uplot'
import UplotReact from 'uplot-react'
import 'uplot/dist/uPlot.min.css'
import { tooltipPlugin } from './tooltip.ts'

export interface LineChartProps {
  title: string
  /** One label per point, e.g. `1일`. */
  labels: string[]
  values: number[]
  xLegend: string
  yLegend: string
  formatValue(value: number): string
  formatTick(value: number): string
  /** A short summary read before the table, e.g. the total. */
  summary: string
}

const height = 200
/** Margins top 5, right 60, bottom 9, left 60 (the left one holds the y axis): docs/product.md §2.3. */
const margin = { top: 5, right: 60, bottom: 9, left: 60 }
/** On a phone 60 px of empty right margin is a fifth of the plot; there it shrinks to what the last label needs. */
const narrowWidth = 480
const narrowRightMargin = 20

function useWidth() {
  const ref = useRef<HTMLDivElement>(null)
  const [width, setWidth] = useState(0)
  useEffect(() => {
    const element = ref.current
    if (!element) return
    setWidth(Math.floor(element.clientWidth))
    const observer = new ResizeObserver(([entry]) => {
      if (entry) setWidth(Math.floor(entry.contentRect.width))
    })
    observer.observe(element)
    return () => observer.disconnect()
  }, [])
  return { ref, width }
}

export function LineChart({
  title,
  labels,
  values,
  xLegend,
  yLegend,
  formatValue,
  formatTick,
  summary,
}: LineChartProps) {
  const { ref, width } = useWidth()
  // The tooltip reads the newest labels and values through a ref, so the chart is not rebuilt for them.
  const latest = useRef({ labels, values, formatValue })
  latest.current = { labels, values, formatValue }

  const options = useMemo<uPlot.Options>(
    () => ({
      width,
      height,
      padding: [margin.top, width < narrowWidth ? narrowRightMargin : margin.right, margin.bottom, 0],
      legend: { show: false },
      cursor: { points: { size: 8 }, drag: { x: false, y: false } },
      scales: {
        x: { time: false },
        // Sales start at zero, as in a stacked linear scale.
        y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.15 : 10_000] },
      },
      axes: [
        {
          label: xLegend,
          labelSize: 16,
          labelGap: 0,
          size: 30,
          space: 28,
          // Whole points only: a day or a month, never half of one.
          incrs: [1, 2, 3, 5, 7, 10, 15],
          values: (_u, splits) => splits.map((index) => latest.current.labels[index] ?? ''),
          grid: { show: false },
        },
        {
          label: yLegend,
          labelSize: 16,
          size: margin.left,
          values: (_u, splits) => splits.map((value) => formatTick(value)),
          grid: { stroke: '#eef1f4' },
        },
      ],
      series: [
        {},
        {
          label: title,
          stroke: '#1f8fe5',
          width: 2,
          fill: 'rgba(77, 184, 255, 0.12)',
          paths: uPlot.paths.spline?.(),
          points: { show: false },
        },
      ],
      plugins: [
        tooltipPlugin((index) => {
          const { labels: current, values: amounts, formatValue: format } = latest.current
          return `${current[index] ?? ''} ${format(amounts[index] ?? 0)}`
        }),
      ],
    }),
    [width, title, xLegend, yLegend, formatTick],
  )

  const data = useMemo<uPlot.AlignedData>(() => [values.map((_, index) => index), values], [values])
  // The caption names the figure. An id must be one token without spaces (aria-labelledby reads a
  // space-separated list of ids), and unique on the page: a generated one, never the title.
  const captionId = useId()

  return (
    <figure className="chart" aria-labelledby={captionId}>
      <figcaption id={captionId} className="chart-title">
        {title}
      </figcaption>
      <div ref={ref} className="chart-plot" aria-hidden="true">
        {width > 0 && <UplotReact options={options} data={data} />}
      </div>
      {/* Hidden by a wrapper: a table grows to fit its rows whatever height it is given, so hidden itself
          it would still lengthen the page by its full height. */}
      <div className="visually-hidden">
        <table>
          <caption>
            {title}: {summary}
          </caption>
          <thead>
            <tr>
              <th scope="col">{xLegend}</th>
              <th scope="col">{yLegend}</th>
            </tr>
          </thead>
          <tbody>
            {values.map((value, index) => (
              <tr key={labels[index]}>
                <th scope="row">{labels[index]}</th>
                <td>{formatValue(value)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  )
}
