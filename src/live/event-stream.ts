// Our own event streams (text/event-stream, docs/product.md decision 133) read a chunk at a time: the
// `data:` of each event (one line of JSON: our server sends no other field), and a comment as null.
// Chunks may split anywhere, lines may end in CRLF, LF or CR.

/** A reader of one stream: hand it each chunk of text; it returns the events the chunk completed. */
export function eventStream() {
  let rest = ''
  let data: string | null | undefined
  return (text: string) => {
    // A CR at the very end may be the first half of a CRLF: kept for the next chunk.
    const lines = (rest + text).split(/\r\n|\n|\r(?!$)/)
    rest = lines.pop() as string
    const events: (string | null)[] = []
    for (const line of lines)
      if (!line) {
        if (data !== undefined) events.push(data)
        data = undefined
      } else data = line[0] === ':' ? (data ?? null) : line.slice(5)
    return events
  }
}
