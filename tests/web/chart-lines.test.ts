// What the line chart draws (src/charts/lines.ts): a point with no neighbour drawn as a point (a line
// through one point draws nothing: the first day of a month), and a point still in progress (the month
// in progress of the year's chart) apart from the full ones, dashed from the last full one to its estimate.
import { describe, expect, it } from 'vitest'
import { lonePoints, plotData } from '../../src/charts/lines.ts'

describe('lone points', () => {
  it('are the values with no value on either side', () => {
    expect(lonePoints([5, null, null])).toEqual([0])
    expect(lonePoints([null, 0, null, 3, 4, null, 7])).toEqual([1, 6])
    expect(lonePoints([1, 2, 3])).toEqual([])
    expect(lonePoints([null, null])).toEqual([])
    expect(lonePoints([9])).toEqual([0])
  })
})

describe("a chart's data", () => {
  const values = [100, 200, 50, null]

  it('is the points and the comparison as they are without a point in progress', () => {
    expect(plotData(values, [1, 2, 3, 4], undefined)).toEqual([[0, 1, 2, 3], values, [1, 2, 3, 4]])
    expect(plotData(values, undefined, undefined)).toEqual([[0, 1, 2, 3], values])
  })

  it('leaves the point in progress out of the line: dashed from the last full point to its estimate, its value so far a point', () => {
    expect(plotData(values, [1, 2, 3, 4], { index: 2, estimate: 300 })).toEqual([
      [0, 1, 2, 3],
      [100, 200, null, null],
      [1, 2, 3, 4],
      [null, 200, 300, null],
      [null, null, 50, null],
    ])
  })

  it('draws no way to an estimate it does not have, and none from a first point', () => {
    expect(plotData(values, undefined, { index: 2, estimate: null })).toEqual([
      [0, 1, 2, 3],
      [100, 200, null, null],
      [null, null, null, null],
      [null, null, 50, null],
    ])
    // January, on its first day: the estimate alone (a lone point) and the value so far.
    expect(plotData([0, null], undefined, { index: 0, estimate: 900 })).toEqual([
      [0, 1],
      [null, null],
      [900, null],
      [0, null],
    ])
  })
})
