// A line chart on uPlot: made when its options change (a new width is new options), fed new data in
// place (setData). Behind it, for screen readers and keyboards, the same figures as a table.
import { type RefObject, useEffect, useId, useMemo, useRef, useState } from 'react'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import { type InProgress, lonePoints, plotData } from './lines.ts'
import { tooltipPlugin } from './tooltip.ts'

/** A second, faint line to compare with (last year's months, the previous month's days). */
export interface ComparisonLine {
  /** Its name in the legend, the tooltip and the table, e.g. `2025년`. */
  label: string
  /** One per point; null where it has no value (no data, or no such day). */
  values: (number | null)[]
}

export interface LineChartProps {
  title: string
  /** One label per point, e.g. `1일`. */
  labels: string[]
  /** One per point; null for a point that has not yet come: the axis keeps it, the line stops before it. */
  values: (number | null)[]
  /** The name of the main line in the legend and the table when there is a comparison, e.g. `2026년`. */
  valuesLabel?: string
  /** Number of sales per point, shown in the tooltip and the table. */
  counts?: (number | null)[]
  comparison?: ComparisonLine
  /**
   * The point still in progress (the month in progress on the year's chart), drawn apart: the line
   * stops before it, dashed from there to its estimate, its value so far a point (charts/lines.ts).
   */
  inProgress?: InProgress
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

/**
 * The uPlot chart drawn in `target`: made when `options` change and destroyed with them, and fed new
 * `data` in place. Nothing is drawn while `options` is null (the width is not known yet).
 */
function usePlot(
  target: RefObject<HTMLDivElement | null>,
  options: uPlot.Options | null,
  data: uPlot.AlignedData,
) {
  const plot = useRef<uPlot | null>(null)
  const latestData = useRef(data)
  latestData.current = data
  useEffect(() => {
    if (!options || !target.current) return
    const made = new uPlot(options, latestData.current, target.current)
    plot.current = made
    return () => {
      made.destroy()
      plot.current = null
    }
  }, [target, options])
  useEffect(() => {
    // A chart just made already shows these data.
    if (plot.current && plot.current.data !== data) plot.current.setData(data)
  }, [data])
}

const none = '—'
const mainColor = '#1f8fe5'
/** A point with no neighbour is drawn as a point: a line through one point draws nothing. */
const lonePointsOf = (u: uPlot, seriesIndex: number) => {
  const lone = lonePoints(u.data[seriesIndex] ?? [])
  return lone.length > 0 ? lone : null
}
/** `(진행 중) 5,000원 · 예상 9,000원`: the point in progress says so, in the tooltip and the table. */
function pointText(
  index: number,
  value: number | null,
  format: (value: number) => string,
  inProgress: InProgress | undefined,
) {
  const text = value == null ? none : format(value)
  if (inProgress?.index !== index) return text
  return `(진행 중) ${text}${inProgress.estimate == null ? '' : ` · 예상 ${format(Math.round(inProgress.estimate))}`}`
}
const countText = (count: number | null | undefined) =>
  count == null ? none : `${count.toLocaleString('ko-KR')}건`

export function LineChart({
  title,
  labels,
  values,
  valuesLabel,
  counts,
  comparison,
  inProgress,
  xLegend,
  yLegend,
  formatValue,
  formatTick,
  summary,
}: LineChartProps) {
  const { ref, width } = useWidth()
  // The tooltip reads the newest labels and values through a ref, so the chart is not rebuilt for them.
  const latest = useRef({ labels, values, counts, comparison, inProgress, formatValue })
  latest.current = { labels, values, counts, comparison, inProgress, formatValue }
  const hasComparison = comparison !== undefined
  const hasInProgress = inProgress !== undefined

  const options = useMemo<uPlot.Options | null>(
    () =>
      width > 0
        ? {
            width,
            height,
            padding: [margin.top, width < narrowWidth ? narrowRightMargin : margin.right, margin.bottom, 0],
            legend: { show: false },
            cursor: { points: { size: 8 }, drag: { x: false, y: false } },
            scales: {
              x: { time: false },
              // Sales start at zero, as in a stacked linear scale.
              y: { range: (_u, _min, max) => [0, max != null && max > 0 ? max * 1.15 : 10_000] },
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
                stroke: mainColor,
                width: 2,
                fill: 'rgba(77, 184, 255, 0.12)',
                paths: uPlot.paths.spline?.(),
                points: { show: false, filter: lonePointsOf, size: 7, fill: mainColor },
              },
              ...(hasComparison
                ? [
                    {
                      label: 'comparison',
                      stroke: '#9aa5b1',
                      width: 1.5,
                      dash: [4, 4],
                      paths: uPlot.paths.spline?.(),
                      points: { show: false, filter: lonePointsOf },
                    },
                  ]
                : []),
              ...(hasInProgress
                ? [
                    {
                      label: 'estimate',
                      stroke: mainColor,
                      width: 2,
                      dash: [6, 4],
                      points: { show: false, filter: lonePointsOf, fill: '#fff' },
                    },
                    {
                      label: 'so far',
                      stroke: mainColor,
                      paths: () => null,
                      points: { show: true, size: 7, fill: mainColor },
                    },
                  ]
                : []),
            ],
            plugins: [
              tooltipPlugin((index) => {
                const {
                  labels: current,
                  values: amounts,
                  counts: sales,
                  comparison: other,
                  formatValue: format,
                } = latest.current
                const amount = amounts[index]
                const parts = [
                  `${current[index] ?? ''} ${pointText(index, amount ?? null, format, latest.current.inProgress)}`,
                ]
                if (sales && amount != null) parts.push(countText(sales[index]))
                if (other) {
                  const value = other.values[index]
                  parts.push(`${other.label} ${value == null ? none : format(value)}`)
                }
                return parts.join(' · ')
              }),
            ],
          }
        : null,
    [width, title, xLegend, yLegend, formatTick, hasComparison, hasInProgress],
  )

  const data = useMemo(
    () =>
      plotData(
        values,
        comparison && labels.map((_, index) => comparison.values[index] ?? null),
        inProgress,
      ) as uPlot.AlignedData,
    [values, labels, comparison, inProgress],
  )
  // The caption names the figure. An id must be one token without spaces (aria-labelledby reads a
  // space-separated list of ids), and unique on the page: a generated one, never the title.
  const captionId = useId()
  usePlot(ref, options, data)

  return (
    <figure className="chart" aria-labelledby={captionId}>
      <figcaption id={captionId} className="chart-title">
        {title}
      </figcaption>
      {comparison && (
        <p className="chart-legend" aria-hidden="true">
          <span className="chart-key chart-key-main">{valuesLabel ?? title}</span>
          <span className="chart-key chart-key-comparison">{comparison.label}</span>
          {inProgress?.estimate != null && <span className="chart-key chart-key-estimate">예상</span>}
        </p>
      )}
      <div ref={ref} className="chart-plot" aria-hidden="true" />
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
              <th scope="col">
                {comparison ? `${valuesLabel ?? title} ` : ''}
                {yLegend}
              </th>
              {counts && <th scope="col">결제 건수</th>}
              {comparison && <th scope="col">{`${comparison.label} ${yLegend}`}</th>}
            </tr>
          </thead>
          <tbody>
            {values.map((value, index) => (
              <tr key={labels[index]}>
                <th scope="row">{labels[index]}</th>
                <td>{pointText(index, value, formatValue, inProgress)}</td>
                {counts && <td>{value == null ? none : countText(counts[index])}</td>}
                {comparison && (
                  <td>
                    {comparison.values[index] == null ? none : formatValue(comparison.values[index] ?? 0)}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  )
}
