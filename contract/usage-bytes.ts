// The canonical bytes of a usage answer: the one layout our server writes (server/usage.ts builds it in
// SQL) and the bucketing worker's fast path reads without JSON.parse (domain/bucketing.ts).
// contract/usage-bytes.md describes it; tests/server/usage/bytes.test.ts joins the two sides.
// The pieces, in the order they appear: all ASCII, no spaces anywhere. (Separate constants, not one
// object, so the bundler inlines them into the worker as the literals they are.)

export const answerStart = '{"usages":['
export const recordStart = '{"createdAt":"'
/** `YYYY-MM-DDTHH:mm:ss.sssZ`: always UTC, always milliseconds, a four-digit year. */
export const timestampLength = 24
/** Between the timestamp and the amount. */
export const recordMiddle = '","amount":'
/** The most digits the fast path reads in an amount (a JSON integer; the database allows 8). */
export const maxAmountDigits = 15
export const recordEnd = '}'
/** Between two records; none after the last. */
export const recordSeparator = ','
export const answerEnd = ']}'
