// Which kept figures the live follower keeps current (follower.ts): their queries then fetch only when
// it asks. A query whose held call failed in this browser fetches as before.

/** The queries (hashes) whose held call failed in this browser: they fetch as before. */
export const liveFailing = new Set<string>()

/** Figures from a server that says their revision (`rev`), whose held call has not failed: followed live. */
export const isFollowed = (query: { state: { data?: unknown }; queryHash: string }) =>
  typeof (query.state.data as { rev?: unknown } | undefined)?.rev === 'number' &&
  !liveFailing.has(query.queryHash)
