// Content negotiation of the usage answer: which form (the contract's JSON, or the compact encoding a
// client's Accept prefers), which compression (Accept-Encoding), and whether If-None-Match names it.
import { isCompactUsageType, isCompactUsageTypeV2 } from '../../contract/usage-compact.ts'
import type { UsageForm } from './answer.ts'

/** Whether a client accepts an encoding (a q=0 refusal counts as not accepting). */
export function accepts(header: string | undefined, encoding: string) {
  return (header ?? '').split(',').some((part) => {
    const [name, ...params] = part.trim().split(';')
    return name?.trim().toLowerCase() === encoding && !params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p))
  })
}

/** The q of an Accept entry (1 when it names none, 0 when it is not a number in 0..1). */
function quality(params: string[]) {
  const q = params.map((p) => /^\s*q\s*=\s*([\d.]+)\s*$/i.exec(p)).find(Boolean)
  if (!q) return 1
  const value = Number(q[1])
  return value >= 0 && value <= 1 ? value : 0
}

/**
 * The form to answer: compact only when Accept names our compact type (version 1) with a q above
 * zero and at least the q it gives JSON (through `application/json`, `application/*` or `*\/*`, the
 * most specific one present). Wildcards alone never bring the compact form, and no Accept, or one
 * that refuses both, gets the contract's JSON as always. Version 2 likewise, when its q is at least
 * version 1's too (decision 115): a client that names only version 1 gets version 1.
 */
export function usageFormFor(accept: string | undefined): UsageForm {
  let compact = 0
  let compact2 = 0
  let json: { q: number; specificity: number } = { q: 0, specificity: -1 }
  for (const entry of (accept ?? '').split(',')) {
    const [name = '', ...params] = entry.split(';')
    const type = name.trim().toLowerCase()
    const q = quality(params)
    if (isCompactUsageType(entry)) compact = Math.max(compact, q)
    if (isCompactUsageTypeV2(entry)) compact2 = Math.max(compact2, q)
    const specificity =
      type === 'application/json' ? 2 : type === 'application/*' ? 1 : type === '*/*' ? 0 : -1
    if (specificity > json.specificity) json = { q, specificity }
  }
  if (compact2 > 0 && compact2 >= json.q && compact2 >= compact) return 'compact2'
  return compact > 0 && compact >= json.q ? 'compact' : 'json'
}

export const etagMatches = (header: string | undefined, etag: string) =>
  (header ?? '').split(',').some((tag) => {
    const candidate = tag.trim()
    return candidate === '*' || candidate.replace(/^W\//, '') === etag.replace(/^W\//, '')
  })
