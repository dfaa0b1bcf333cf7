// The docs as rules, checked: docs/product.md stays a description of rules (at most 600 lines, the
// measured figures in bench/README.md), every "decision N" cited anywhere in the repo has its line in
// the index of decisions, docs/decisions.md (and that line's link names a section of product.md or of
// the bench notebook), the docs' links
// to files of the repo resolve, and no tracked file cites an issue number: the repo speaks for itself,
// so a comment names the rule or the decision, never the ticket it came from.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = resolve(import.meta.dirname, '../..')
const read = (path: string) => readFileSync(join(root, path), 'utf8')
const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
  .split('\0')
  .filter((path) => path !== '' && existsSync(join(root, path)))

/** Text files worth scanning: everything tracked but the lock file and binary assets. */
const scanned = tracked.filter(
  (path) => path !== 'package-lock.json' && !/\.(png|jpe?g|gif|webp|ico|woff2?|tar\.gz|gz|br)$/.test(path),
)

// The word issue (or issues) then a number, with or without "#"; "#" and a number in parentheses; "PR #"
// and a number (the examples below are built from pieces, so this file passes its own scan). A URL to
// another project's issue (".../issues/123", "pglite#123") is not matched: it names that project's
// record, not ours.
const issueCitation = /\bissues? ?#?\d+|\(#\d+\)|\bPR ?#\d+/i

/** Every decision number cited in a text: "decision 4", "decisions 97–99, 138", "decisions 4 and 49". */
function citedDecisions(text: string): number[] {
  const numbers: number[] = []
  const citation =
    /\bdecisions? (\d+(?:\s*[–-]\s*\d+)?(?:(?:,\s*(?:and\s+)?|\s+and\s+)\d+(?:\s*[–-]\s*\d+)?)*)/gi
  for (const match of text.matchAll(citation)) {
    for (const part of (match[1] ?? '').split(/,\s*(?:and\s+)?|\s+and\s+/)) {
      const [from = 0, to = from] = part.split(/\s*[–-]\s*/).map(Number)
      for (let n = from; n <= to; n++) numbers.push(n)
    }
  }
  return numbers
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')
}

/** The anchors of a Markdown file's headings. */
function anchorsOf(text: string): Set<string> {
  return new Set(
    text
      .split('\n')
      .filter((line) => /^#{1,6} /.test(line))
      .map((line) => slug(line.replace(/^#+ /, ''))),
  )
}

const product = read('docs/product.md')
const anchors: Record<string, Set<string>> = {
  'product.md': anchorsOf(product),
  '../bench/README.md': anchorsOf(read('bench/README.md')),
}
// The index is a table of decisions, a few to a row: "| 133 | held calls streamed | [§8.4](product.md#84-live-changes) |".
const indexed = new Map<number, string>()
for (const [, n, link] of read('docs/decisions.md').matchAll(/\| (\d+) \| [^|\n]+ \| (\[[^\]]+\]\([^)]+\))/g))
  indexed.set(Number(n), link ?? '')

describe('the docs as rules', () => {
  it('keeps docs/product.md at 600 lines or fewer', () => {
    expect(product.split('\n').length).toBeLessThanOrEqual(600)
  })

  it('has an index entry for every decision cited anywhere, each linking the section that states it', () => {
    expect(indexed.size, 'the index of decisions').toBeGreaterThan(100)
    const missing: string[] = []
    for (const path of scanned) {
      for (const n of citedDecisions(read(path))) if (!indexed.has(n)) missing.push(`${path}: decision ${n}`)
    }
    expect([...new Set(missing)]).toEqual([])
    const unresolved = [...indexed.entries()].filter(([, link]) => {
      const [, file = '', anchor = ''] = /\]\(([^)#]*)#([^)]+)\)/.exec(link) ?? []
      return !anchors[file]?.has(anchor)
    })
    expect(unresolved).toEqual([])
  })

  it('links only files and headings that exist, from the README and the docs', () => {
    const broken: string[] = []
    for (const path of ['README.md', 'bench/README.md', ...tracked.filter((p) => /^docs\/.*\.md$/.test(p))]) {
      for (const [, target = ''] of read(path).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target)) continue
        const [file = '', anchor] = target.split('#')
        const linked = file === '' ? join(root, path) : resolve(root, dirname(path), file)
        if (!existsSync(linked)) broken.push(`${path}: ${target}`)
        else if (anchor && linked.endsWith('.md') && !anchorsOf(readFileSync(linked, 'utf8')).has(anchor))
          broken.push(`${path}: ${target}`)
      }
    }
    expect(broken).toEqual([])
  })

  it('names only files that exist, in the docs that state rules', () => {
    const gone: string[] = []
    for (const path of ['README.md', 'docs/product.md', 'docs/operations.md', 'contract/usage-compact.md']) {
      const named = read(path).matchAll(
        /`((?:src|server|contract|device|domain|tests|bench|scripts|build)\/[\w./-]+)`/g,
      )
      for (const [, file = ''] of named) if (!existsSync(join(root, file))) gone.push(`${path}: ${file}`)
    }
    expect([...new Set(gone)]).toEqual([])
  })

  it('finds no issue number cited in any tracked file', () => {
    const citing: string[] = []
    for (const path of scanned) {
      read(path)
        .split('\n')
        .forEach((line, i) => {
          if (issueCitation.test(line)) citing.push(`${path}:${i + 1}: ${line.trim().slice(0, 100)}`)
        })
    }
    expect(citing).toEqual([])
  })

  it('recognises the forms it looks for', () => {
    expect(
      citedDecisions('decisions 97–99, 138 and decision 4; decisions 4 and 49; decisions 83-88'),
    ).toEqual([97, 98, 99, 138, 4, 4, 49, 83, 84, 85, 86, 87, 88])
    const n = (text: string) => text.replace('N', String(24))
    for (const cited of ['issue N', 'Issue #N', 'issues N and 25', 'fixed (#N)', 'PR #N'].map(n))
      expect(issueCitation.test(cited), cited).toBe(true)
    for (const other of ['https://github.com/electric-sql/pglite/issues/123', 'pglite#123', 'color: #333'])
      expect(issueCitation.test(other), other).toBe(false)
  })
})
