import type uPlot from 'uplot'

/**
 * A uPlot plugin: a tooltip that follows the cursor, 14 px from it (docs/product.md §2.3), naming the point and
 * its value. uPlot's cursor snaps to the nearest point, which serves as the hover mesh.
 */
export function tooltipPlugin(pointText: (index: number) => string, offset = 14): uPlot.Plugin {
  let tooltip: HTMLDivElement
  return {
    hooks: {
      init: (u) => {
        tooltip = document.createElement('div')
        tooltip.className = 'chart-tooltip'
        tooltip.setAttribute('aria-hidden', 'true')
        tooltip.style.display = 'none'
        u.over.appendChild(tooltip)
        u.over.addEventListener('mouseleave', () => {
          tooltip.style.display = 'none'
        })
      },
      setCursor: (u) => {
        const { idx, left, top } = u.cursor
        if (idx == null || left == null || top == null || left < 0) {
          tooltip.style.display = 'none'
          return
        }
        tooltip.textContent = pointText(idx)
        tooltip.style.display = 'block'
        // Keep it inside the plot: flip to the cursor's left near the right edge.
        const width = tooltip.offsetWidth
        const x = left + offset + width > u.over.clientWidth ? left - offset - width : left + offset
        tooltip.style.transform = `translate(${Math.max(0, x)}px, ${top + offset}px)`
      },
    },
  }
}
