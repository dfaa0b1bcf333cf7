// What a line chart draws of its points, pure (tests/web/chart-lines.test.ts): a line through one point
// draws nothing, so a point with no neighbour is drawn as a point (the first day of a month); and a point
// still in progress (the month in progress on the year's chart) is not a fall against the full ones: the
// line stops at the last full point, a dashed way goes from there to the estimate of the point in
// progress, and its value so far is a point of its own.

/** Values as uPlot holds them (an array, or a typed array for x). */
type Values = ArrayLike<number | null | undefined>

/** The indices of the values with no value on either side: drawn as points. */
export function lonePoints(values: Values): number[] {
  const lone: number[] = []
  for (let index = 0; index < values.length; index++)
    if (values[index] != null && values[index - 1] == null && values[index + 1] == null) lone.push(index)
  return lone
}

/** A point still in progress and what it is expected to come to (null: no estimate). */
export interface InProgress {
  index: number
  estimate: number | null
}

/**
 * uPlot's data: the x of each point, the line, the comparison when there is one; with a point in
 * progress, the line without it, then the dashed way from the last full point to its estimate, then
 * its value so far.
 */
export function plotData(
  values: (number | null)[],
  comparison: (number | null)[] | undefined,
  inProgress: InProgress | undefined,
): (number | null)[][] {
  const x = values.map((_, index) => index)
  const compared = comparison ? [comparison] : []
  if (!inProgress) return [x, values, ...compared]
  const { index: at, estimate } = inProgress
  return [
    x,
    values.map((value, index) => (index === at ? null : value)),
    ...compared,
    values.map((value, index) =>
      index === at ? estimate : index === at - 1 && estimate != null ? value : null,
    ),
    values.map((value, index) => (index === at ? value : null)),
  ]
}
