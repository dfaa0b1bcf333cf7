// The canonical bytes of a usage answer: the one layout our server writes (server/usage.ts builds it in
// SQL) and the bucketing worker's fast path reads without JSON.parse (src/workers/bucket.ts).
// contract/usage-bytes.md describes it; tests/server/usage-bytes.test.ts joins the two sides.

/** The fixed pieces, in the order they appear. All ASCII, no spaces anywhere. */
export const canonicalUsage = {
  answerStart: '{"usages":[',
  recordStart: '{"createdAt":"',
  /** Between the timestamp and the amount. */
  recordMiddle: '","amount":',
  recordEnd: '}',
  /** Between two records; none after the last. */
  separator: ',',
  answerEnd: ']}',
  /** `YYYY-MM-DDTHH:mm:ss.sssZ`: always UTC, always milliseconds, four-digit year. */
  timestampLength: 24,
  /** The most digits the fast path reads in an amount (a JSON integer; the database allows 8). */
  maxAmountDigits: 15,
} as const
