// Runs bucketing off the main thread. It receives a usage answer's body as it streams, piece by piece
// (each transferred, not copied), after its year and Content-Type, and answers with the buckets only:
// first, for a version 2 compact answer, the buckets of its leading sums, then those of the whole answer
// (`bucketing` of bucket-feed.ts, which the main thread runs itself where no worker runs).

import { bucketing } from './bucket-feed.ts'

const handle = bucketing((reply) => self.postMessage(reply))
self.onmessage = ({ data }) => handle(data)
