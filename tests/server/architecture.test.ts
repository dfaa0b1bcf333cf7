// The import graph of the product code has no circle (docs/architecture.md): madge reads every import
// of src, contract, domain, server and device, types included, and lists the circles it finds.
// madge parses TypeScript with TypeScript's JavaScript API, which TypeScript 7 (the project's compiler)
// no longer has: its parser is given the TypeScript 6 that @ts-morph/common carries (a file of its own,
// with no `tsc` of its own beside the project's) instead.
import { readdirSync, readFileSync } from 'node:fs'
import Module, { createRequire } from 'node:module'
import { sep } from 'node:path'
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

// Who may see which store has one owner, server/store-access.ts (docs/architecture.md): every other
// query asks it (its queries and SQL fragments) instead of naming the memberships table itself. Only
// the schema, its migrations and the code that writes memberships (the seed, the admin command's
// accounts, the team's changes) name it besides.
const membershipWriters = [
  'server/store-access.ts',
  'server/db/schema.ts',
  'server/db/seed.ts',
  'server/db/accounts.ts',
  'server/team/members.ts',
]

/** The product's server files, besides the memberships' owner and writers, that name the memberships table in code. */
function membershipReaders() {
  const files = readdirSync(`${root}/server`, { recursive: true, encoding: 'utf8' })
    .map((file) => `server/${file.split(sep).join('/')}`)
    .filter((file) => /\.tsx?$/.test(file) && !file.startsWith('server/db/migrations/'))
    .filter((file) => !membershipWriters.includes(file))
  return files.filter((file) => {
    const code = readFileSync(`${root}/${file}`, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/(^|[^:])\/\/.*$/gm, '$1')
    return /\bmemberships\b/.test(code)
  })
}

it('only server/store-access.ts reads the memberships table', () => {
  expect(membershipReaders()).toEqual([])
})
