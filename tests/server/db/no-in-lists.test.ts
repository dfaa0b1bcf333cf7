// biome-ignore-all lint/suspicious/noTemplateCurlyInString: its inputs are lines of source text
// No query of the server builds a list of parameters or of row constructors inside IN (or an ARRAY[...]
// of parameters): PGlite hung on such a list of 250 rows or more the second time it ran, at 100 % CPU,
// blocking the whole server (docs/upstream/pglite-row-constructor-hang.md). A list goes as ONE
// parameter: an array (`= any(${intArray(ids)}::int[])`, `unnest(…)`) or JSON (`jsonb_to_recordset`),
// joined. This reads the server's source and names every line that does otherwise.
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

/** Drizzle's inArray with a JS array also makes `in ($1, $2, …)`: allowed only where the list is short by nature. */
const shortInArrays = new Map([['server/usage/cache.ts', 'the years warmed: this one and the one before']])

const patterns: [RegExp, string][] = [
  [/sql\.join\(/, 'sql.join builds a list of fragments: pass one array or JSON parameter'],
  [/\bin\s*\(\s*\$\{[^}]*\}\s*\)/i, 'IN over one interpolated list: use = any(array) or a join'],
  [
    /\(\s*\$\{[^}]*\}\s*::\w+\s*,\s*\$\{[^}]*\}[^)]*\)\s*`/,
    'a row constructor of parameters, mapped into a list',
  ],
  [/array\s*\[\s*\$\{/i, 'ARRAY[...] of parameters: pass one array parameter'],
  [/\b(?:not)?inArray\(/i, "drizzle's inArray makes IN ($1, $2, …)"],
]

/** The offending lines of a file's text: `line: reason`. */
function inLists(file: string, text: string): string[] {
  const found: string[] = []
  text.split('\n').forEach((line, index) => {
    if (/^\s*(\/\/|\*|\/\*\*)/.test(line)) return
    for (const [pattern, reason] of patterns) {
      if (!pattern.test(line)) continue
      if (/inArray/i.test(reason) && shortInArrays.has(file)) continue
      if (/^import\b/.test(line.trim())) continue
      // sql.raw's text holds constants, not parameters (the demo seed's arrays).
      if (/ARRAY/.test(reason) && line.includes('sql.raw(')) continue
      found.push(`${file}:${index + 1}: ${reason}: ${line.trim()}`)
    }
  })
  return found
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : sourceFiles(full)
    return entry.name.endsWith('.ts') ? [full] : []
  })
}

describe('lists in queries', () => {
  it('finds the forms that hung PGlite', () => {
    // The alert rules' former queries, and the view's.
    expect(
      inLists(
        'a.ts',
        [
          'where (store_id, kind, episode) in (${sql.join(',
          '  candidates.map((c) => sql`(${c.storeId}::int, ${c.kind}::text, ${c.episode}::text)`),',
          "where state = 'held' and id in (${list}) returning id",
          'from unnest(array[${list}]) as s(id)',
          '.where(inArray(alerts.storeId, ids))',
        ].join('\n'),
      ),
    ).toHaveLength(5)
    expect(
      inLists('a.ts', 'where id = any(${intArray(ids)}::bigint[]) and year in (${year - 1}, ${year})'),
    ).toEqual([])
  })

  it('are never made in the server', () => {
    const found = sourceFiles('server').flatMap((file) => inLists(file, readFileSync(file, 'utf8')))
    expect(found).toEqual([])
  })
})
