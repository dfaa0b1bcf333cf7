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
