// The import graph of the product code has no circle (docs/architecture.md): madge reads every import
// of src, contract, domain, server and device, types included, and lists the circles it finds.
// madge parses TypeScript with TypeScript's JavaScript API, which TypeScript 7 (the project's compiler)
// no longer has: its parser is given TypeScript 5 (the `typescript-5` package) instead.
import Module, { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

type Resolve = (request: string, parent: { filename?: string } | undefined, ...rest: unknown[]) => string
const modules = Module as unknown as { _resolveFilename: Resolve }
const resolve = modules._resolveFilename
modules._resolveFilename = function (this: unknown, request, parent, ...rest) {
  const fromLibrary = request === 'typescript' && /[\\/]node_modules[\\/]/.test(parent?.filename ?? '')
  return resolve.call(this, fromLibrary ? 'typescript-5' : request, parent, ...rest)
}

type Madge = (
  paths: string[],
  config: Record<string, unknown>,
) => Promise<{ circular(): string[][]; warnings(): { skipped: string[] } }>
const madge = createRequire(import.meta.url)('madge') as Madge

const root = fileURLToPath(new URL('../..', import.meta.url))

/** The import circles among the product's rooms of the repository at `base`. */
export async function importCircles(base = root) {
  const graph = await madge(['src', 'contract', 'domain', 'server', 'device'], {
    baseDir: base,
    fileExtensions: ['ts', 'tsx'],
    tsConfig: `${base}/tsconfig.app.json`,
    excludeRegExp: [/routeTree\.gen\.ts$/],
  })
  return graph.circular()
}

it('no import circle in src, contract, domain, server or device', { timeout: 120_000 }, async () => {
  expect(await importCircles()).toEqual([])
})
