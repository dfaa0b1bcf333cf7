// The media type of the compact usage encoding (usage-compact.ts; docs/architecture.md), apart from the
// codec: the app's main thread names it in Accept and must not carry the decoder, which only the
// bucketing worker needs (the constants are inlined where they are used; no chunk is shared).

/** The media type, as the server sends it in Content-Type and the app names it in Accept. */
export const compactUsageType = 'application/vnd.laundry.usage; v=1'
/** Version 2: the year's day sums first, then the records as version 1 carries them (usage-compact.md). */
export const compactUsageTypeV2 = 'application/vnd.laundry.usage; v=2'
/**
 * What the app sends as Accept for a usage answer: the compact form's version 2, else version 1 (a
 * server of before version 2), else the contract's JSON.
 */
export const usageAccept =
  'application/vnd.laundry.usage; v=2, application/vnd.laundry.usage; v=1;q=0.95, application/json;q=0.9'

/**
 * The version of the compact form a Content-Type (or one Accept entry, its q left aside) names, any case
 * and spacing (`v=1`, `v="2"`); 0 for anything else.
 */
export function compactUsageVersion(value: string | null | undefined): number {
  const [name, ...params] = (value ?? '').split(';')
  if (name?.trim().toLowerCase() !== 'application/vnd.laundry.usage') return 0
  for (const param of params) {
    const version = /^\s*v\s*=\s*"?([12])"?\s*$/i.exec(param)
    if (version) return Number(version[1])
  }
  return 0
}

/** Whether a Content-Type (or one Accept entry) names the compact form, version 2. */
export const isCompactUsageTypeV2 = (value: string | null | undefined) => compactUsageVersion(value) === 2
