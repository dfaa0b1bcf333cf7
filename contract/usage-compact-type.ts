// The media type of the compact usage encoding (usage-compact.ts; docs/architecture.md), apart from the
// codec: the app's main thread names it in Accept and must not carry the decoder, which only the
// bucketing worker needs (the constants are inlined where they are used; no chunk is shared).

/** The media type, as the server sends it in Content-Type and the app names it in Accept. */
export const compactUsageType = 'application/vnd.laundry.usage; v=1'
/** What the app sends as Accept for a usage answer: the compact form, else the contract's JSON. */
export const usageAccept = 'application/vnd.laundry.usage; v=1, application/json;q=0.9'
