// npm run budget: the gzip JavaScript of each screen against budget.json; exits 1 when over.
import { existsSync } from 'node:fs'
import { readBudget, screenSize } from './bundle-size.ts'

const budget = readBudget()
const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`
let over = 0
for (const [distDir, limits] of Object.entries(budget.gzipJsBytes)) {
  if (!existsSync(distDir)) {
    console.error(`budget: ${distDir}/ is missing; build it first (npm run build).`)
    process.exit(1)
  }
  for (const [route, limit] of Object.entries(limits)) {
    const routeChunks = budget.routes[route]
    if (!routeChunks) throw new Error(`budget.json names nothing the router loads for ${route}`)
    const size = screenSize(distDir, routeChunks, budget.loadedAtStart)
    const ok = size.js.gzip <= limit
    if (!ok) over++
    console.log(
      `budget ${ok ? 'ok  ' : 'OVER'} ${distDir} ${route}: ${kB(size.js.gzip)} gzip JS (budget ${kB(limit)}), ` +
        `${kB(size.js.brotli)} brotli, ${kB(size.css.gzip)} gzip CSS, ${size.files.length} files`,
    )
  }
}
if (over > 0) {
  console.error(`budget: ${over} screen(s) over budget`)
  process.exit(1)
}
