// The import graph of the product code has no circle (docs/architecture.md): madge reads every import
// of src, contract, domain, server and device, types included, and lists the circles it finds.
// madge parses TypeScript with TypeScript's JavaScript API, which TypeScript 7 (the project's compiler)
// no longer has: its parser is given the TypeScript 6 that @ts-morph/common carries (a file of its own,
// with no `tsc` of its own beside the project's) instead.
import Module, { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

const require = createRequire(import.meta.url)
const typescriptApi = require.resolve('@ts-morph/common/dist/typescript.js')
type Resolve = (request: string, parent: { filename?: string } | undefined, ...rest: unknown[]) => string
const modules = Module as unknown as { _resolveFilename: Resolve }
const resolve = modules._resolveFilename
modules._resolveFilename = function (this: unknown, request, parent, ...rest) {
  const fromLibrary = request === 'typescript' && /[\\/]node_modules[\\/]/.test(parent?.filename ?? '')
  return fromLibrary ? typescriptApi : resolve.call(this, request, parent, ...rest)
}

type Madge = (
  paths: string[],
  config: Record<string, unknown>,
) => Promise<{ circular(): string[][]; warnings(): { skipped: string[] } }>
const madge = require('madge') as Madge

const root = fileURLToPath(new URL('../..', import.meta.url))

/** The import circles among the product's rooms. */
async function importCircles() {
  const graph = await madge(
    ['src', 'contract', 'domain', 'server', 'device'].map((room) => `${root}/${room}`),
    {
      baseDir: root,
      fileExtensions: ['ts', 'tsx'],
      tsConfig: `${root}/tsconfig.app.json`,
      excludeRegExp: [/routeTree\.gen\.ts$/],
    },
  )
  return graph.circular()
}

it('no import circle in src, contract, domain, server or device', { timeout: 120_000 }, async () => {
  expect(await importCircles()).toEqual([])
})
