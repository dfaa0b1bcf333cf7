// The reader of our event streams (src/live/event-stream.ts, docs/product.md decision 133): the same
// events whichever way the text is split into chunks, with LF, CRLF or CR line ends; comments as null.
import { describe, expect, it } from 'vitest'
import { eventStream } from '../../../src/live/event-stream.ts'

/** The events of a stream given in chunks, their JSON parsed (a comment: null). */
const events = (chunks: string[]) => {
  const read = eventStream()
  return chunks.flatMap((chunk) => read(chunk)).map((data) => JSON.parse(data ?? 'null'))
}

const stream = ':\n\ndata: {"rev":7,"changes":[],"count":1,"sum":2}\n\n:\n\ndata: {"rev":8,"reset":true}\n\n'
const expected = [null, { rev: 7, changes: [], count: 1, sum: 2 }, null, { rev: 8, reset: true }]

describe('eventStream', () => {
  it('reads events and comments from one chunk', () => {
    expect(events([stream])).toEqual(expected)
  })

  it('gives the same events however the chunks are split, with LF, CRLF or CR line ends', () => {
    for (const end of ['\n', '\r\n', '\r']) {
      // A CR at the very end may be half a CRLF, so it is read with what follows: a comment here.
      const text = `${stream}:\n\n`.replaceAll('\n', end)
      for (let a = 0; a <= text.length; a++)
        for (let b = a; b <= text.length; b += 3)
          expect(
            events([text.slice(0, a), text.slice(a, b), text.slice(b)]),
            `${JSON.stringify(end)} ${a} ${b}`,
          ).toEqual(end === '\r' ? expected : [...expected, null])
      // One character at a time.
      expect(events([...text]).slice(0, 4)).toEqual(expected)
    }
  })

  it('keeps an event until its blank line', () => {
    const read = eventStream()
    expect(read('data: {"a":')).toEqual([])
    expect(read('1}\n')).toEqual([])
    expect(read('\n').map((data) => JSON.parse(data ?? ''))).toEqual([{ a: 1 }])
    expect(read('data:{"b":2}\n\n')).toEqual(['{"b":2}'])
    // A comment between an event's data and its blank line does not hide the event.
    expect(read('data: 3\n:\n\n')).toEqual([' 3'])
    expect(read(': a comment with text\n\n')).toEqual([null])
    // A blank line with nothing before it is no event.
    expect(read('\n\n')).toEqual([])
  })
})
