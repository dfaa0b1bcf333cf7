// Long by nature: one codec, its encoder and decoder side by side so that each format change is made
// to both at once.
// The compact usage encoding (media type `application/vnd.laundry.usage; v=1`): the records of a
// usage answer as bytes near their information content, for the slow lines the owners are on. Our
// server writes it to a client whose Accept prefers it (server/usage.ts, server/routes/store.ts); the
// bucketing worker reads it straight into buckets (domain/bucketing.ts). Every other client
// keeps getting the contract's JSON. docs/architecture.md describes the format byte by byte.
//
// Designed for the data as it is: records sorted by time, so each createdAt is a delta (ms) from the
// one before; amounts from a few prices. A record's head byte holds the delta's high part together
// with the price's index in a small dictionary; the delta's low bytes are columns of their own (random
// bytes, which brotli leaves alone, apart from the skewed heads it codes tightly). Anything that does
// not fit the head (an amount outside the dictionary, a negative or a large delta) escapes to an
// overflow column as a zigzag varint, so every integer round-trips exactly, in any order.
// Pure TypeScript, no dependency, no Node or DOM: the server and the worker import it alike. Its media
// type is in usage-compact-type.ts, which the app's main thread imports without this code.

/**
 * The version of the compact form a Content-Type (or one Accept entry, its q left aside) names, any case
 * and spacing (`v=1`, `v="2"`); 0 for anything else.
 */
export function compactUsageVersion(value: string | null | undefined): number {
  // The name, any parameters, then the first `v` parameter: 1 or 2, quoted or not.
  const version =
    /^\s*application\/vnd\.laundry\.usage\s*(?:;[^;]*?)*?;\s*v\s*=\s*"?([12])"?\s*(?:;|$)/i.exec(value ?? '')
  return version ? Number(version[1]) : 0
}

/** Whether a Content-Type (or one Accept entry) names the compact form, version 2. */
export const isCompactUsageTypeV2 = (value: string | null | undefined) => compactUsageVersion(value) === 2

/**
 * Whether a Content-Type (or one Accept entry, its q left aside) names the compact form, version 1:
 * `compactUsageType` of usage-compact-type.ts, any case and spacing.
 */
export const isCompactUsageType = (value: string | null | undefined) => compactUsageVersion(value) === 1

/** The first bytes of every answer: "LU" and the format version. */
const magic = [0x4c, 0x55, 1] as const
/** Amounts and deltas lie strictly within ±2^52, so their zigzag values are safe integers. */
const largest = 2 ** 52
/** Instants (ms since the epoch) lie strictly within ±2^51, about ±71,000 years: their deltas within ±2^52. */
const latest = 2 ** 51
/** At most this many bytes of a delta are low-byte columns. */
const maxPlanes = 6

const zigzag = (value: number) => (value < 0 ? -2 * value - 1 : 2 * value)
const unzigzag = (value: number) => (value % 2 === 1 ? -(value + 1) / 2 : value / 2)
/** Bytes of an unsigned LEB128 varint of a safe integer. */
const varintLength = (value: number) => {
  let length = 1
  while (value >= 128) {
    value = Math.floor(value / 128)
    length++
  }
  return length
}

class Writer {
  bytes: Uint8Array<ArrayBuffer>
  at = 0
  constructor(size: number) {
    this.bytes = new Uint8Array(size)
  }
  reserve(count: number) {
    if (this.at + count <= this.bytes.length) return
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.at + count))
    grown.set(this.bytes)
    this.bytes = grown
  }
  byte(value: number) {
    this.reserve(1)
    this.bytes[this.at++] = value
  }
  varint(value: number) {
    this.reserve(8)
    while (value >= 128) {
      this.bytes[this.at++] = (value % 128) + 128
      value = Math.floor(value / 128)
    }
    this.bytes[this.at++] = value
  }
}

/** How a record set is laid out: low-byte columns, the dictionary, and the head byte's two parts. */
interface Layout {
  planes: number
  dictionary: number[]
}

/** log2 without Math.log2 of 0. */
const entropyBits = (count: number, total: number) => (count > 0 ? -count * Math.log2(count / total) : 0)

/**
 * Chooses the layout that should compress best: for every number of low-byte columns (0 to 6) and
 * every dictionary size, the estimated size is the head bytes' entropy (what brotli's Huffman codes
 * get near) plus 8 bits per low byte, escape byte and dictionary byte. A busy store's year takes two
 * low bytes and its 8 prices.
 */
function chooseLayout(deltas: Float64Array, amounts: ArrayLike<number>): Layout {
  const n = deltas.length
  // Amounts by frequency, most frequent first; only the 127 most frequent can be in the dictionary.
  const frequency = new Map<number, number>()
  for (let i = 0; i < n; i++) {
    const amount = amounts[i] as number
    frequency.set(amount, (frequency.get(amount) ?? 0) + 1)
  }
  const ranked = [...frequency.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, 127)
  const rankOf = new Map(ranked.map(([amount], rank) => [amount, rank]))
  const ranks = ranked.length
  /** Per record, the rank of its amount, or `ranks` for one outside every dictionary. */
  const rank = new Uint8Array(n)
  /** Escape bytes of the amounts of each rank (the last: the amounts of no rank). */
  const amountEscape = new Float64Array(ranks + 1)
  for (let i = 0; i < n; i++) {
    const amount = amounts[i] as number
    const r = rankOf.get(amount) ?? ranks
    rank[i] = r
    amountEscape[r] = (amountEscape[r] as number) + varintLength(zigzag(amount))
  }

  let best: Layout = { planes: 0, dictionary: [] }
  let bestBits = Number.POSITIVE_INFINITY
  let largestDelta = 0
  for (let i = 0; i < n; i++) largestDelta = Math.max(largestDelta, Math.abs(deltas[i] as number))
  // counts[h * (ranks + 1) + r] for high parts 0..254, and row 255 for the rest (negative or larger).
  const counts = new Float64Array(256 * (ranks + 1))
  const rowTotals = new Float64Array(256)
  // More low bytes than the largest delta needs would only add bytes: stop at the first that holds it.
  for (let planes = 0; planes <= maxPlanes; planes++) {
    const scale = 2 ** (8 * planes)
    counts.fill(0)
    rowTotals.fill(0)
    /** Escape bytes of each row's high parts. */
    const highEscape = new Float64Array(256)
    for (let i = 0; i < n; i++) {
      const high = Math.floor((deltas[i] as number) / scale)
      const row = high >= 0 && high < 255 ? high : 255
      const cell = row * (ranks + 1) + (rank[i] as number)
      counts[cell] = (counts[cell] as number) + 1
      rowTotals[row] = (rowTotals[row] as number) + 1
      if (row === 255) highEscape[255] = (highEscape[255] as number) + varintLength(zigzag(high))
    }
    for (let row = 0; row < 255; row++) highEscape[row] = (rowTotals[row] as number) * varintLength(2 * row)
    for (let k = 0; k <= ranks; k++) {
      const codes = k + 1
      const highCodes = Math.floor(256 / codes)
      // Head symbols: high parts 0..highCodes-2 literal, the last high code escapes; ranks 0..k-1
      // literal, code k escapes.
      const symbols = new Float64Array(highCodes * codes)
      let escapeBytes = 0
      for (let row = 0; row < 256; row++) {
        if (rowTotals[row] === 0) continue
        const h = Math.min(row, highCodes - 1)
        if (h === highCodes - 1) escapeBytes += highEscape[row] as number
        for (let r = 0; r <= ranks; r++) {
          const count = counts[row * (ranks + 1) + r] as number
          if (count === 0) continue
          const symbol = h * codes + Math.min(r, k)
          symbols[symbol] = (symbols[symbol] as number) + count
        }
      }
      for (let r = k; r <= ranks; r++) escapeBytes += amountEscape[r] as number
      let bits = 8 * (n * planes + escapeBytes)
      for (const count of symbols) bits += entropyBits(count, n)
      for (let r = 0; r < k; r++) bits += 8 * varintLength(zigzag((ranked[r] as [number, number])[0]))
      if (bits < bestBits) {
        bestBits = bits
        best = { planes, dictionary: ranked.slice(0, k).map(([amount]) => amount) }
      }
    }
    if (largestDelta < scale) break
  }
  return best
}

const checkAmount = (value: number) => {
  if (!Number.isInteger(value) || Math.abs(value) >= largest)
    throw new RangeError(`compact usage: amount ${value} is not an integer within ±2^52`)
}

/**
 * Encodes records, given as two columns of the same length: createdAt in ms since the epoch, and the
 * amount in won. Any order, equal instants, amounts any integers strictly within ±2^52, instants
 * strictly within ±2^51;
 * decoding gives back exactly these, in this order. Throws RangeError for anything else.
 */
export function encodeUsage(
  createdAt: ArrayLike<number>,
  amounts: ArrayLike<number>,
): Uint8Array<ArrayBuffer> {
  const n = createdAt.length
  if (amounts.length !== n) throw new RangeError('compact usage: columns of different lengths')
  const out = new Writer(16 + n * 3)
  for (const byte of magic) out.byte(byte)
  out.varint(n)
  if (n === 0) return out.bytes.slice(0, out.at)

  const base = createdAt[0] as number
  const deltas = new Float64Array(n)
  let previous = base
  for (let i = 0; i < n; i++) {
    const instant = createdAt[i] as number
    if (!Number.isInteger(instant) || Math.abs(instant) >= latest)
      throw new RangeError(`compact usage: createdAt ${instant} is not an integer within ±2^51`)
    checkAmount(amounts[i] as number)
    deltas[i] = instant - previous
    previous = instant
  }
  const { planes, dictionary } = chooseLayout(deltas, amounts)
  const codes = dictionary.length + 1
  const highCodes = Math.floor(256 / codes)
  const indexOf = new Map(dictionary.map((amount, index) => [amount, index]))
  const scale = 2 ** (8 * planes)

  out.varint(zigzag(base))
  out.byte(planes)
  out.byte(dictionary.length)
  for (const amount of dictionary) out.varint(zigzag(amount))

  out.reserve(n * (1 + planes))
  const heads = out.at
  const low = heads + n
  out.at = low + n * planes
  for (let i = 0; i < n; i++) {
    const delta = deltas[i] as number
    const high = Math.floor(delta / scale)
    let rest = delta - high * scale
    for (let p = planes - 1; p >= 0; p--) {
      out.bytes[low + p * n + i] = rest % 256
      rest = Math.floor(rest / 256)
    }
    const highCode = high >= 0 && high < highCodes - 1 ? high : highCodes - 1
    const amount = amounts[i] as number
    const amountCode = indexOf.get(amount) ?? dictionary.length
    out.bytes[heads + i] = highCode * codes + amountCode
    if (highCode === highCodes - 1) out.varint(zigzag(high))
    if (amountCode === dictionary.length) out.varint(zigzag(amount))
  }
  return out.bytes.slice(0, out.at)
}

/** Whether bytes begin as a compact usage answer of this version. */
export const isCompactUsage = (bytes: Uint8Array) =>
  bytes[0] === magic[0] && bytes[1] === magic[1] && bytes[2] === magic[2]

const malformed = () => new Error('compact usage: malformed answer')

/**
 * Decodes a compact answer, calling `record(createdAt, amount)` for every record in order (ms since
 * the epoch, won): no record objects, no strings, no Dates. Returns the number of records. Throws on
 * bytes that are not a whole answer of version 1.
 */
export function decodeUsage(bytes: Uint8Array, record: (createdAt: number, amount: number) => void): number {
  if (!isCompactUsage(bytes)) throw malformed()
  let at: number = magic.length
  const end = bytes.length
  const varint = () => {
    let value = 0
    let factor = 1
    for (;;) {
      if (at >= end || factor > largest) throw malformed()
      const byte = bytes[at++] as number
      value += (byte & 127) * factor
      if (byte < 128) {
        if (value > Number.MAX_SAFE_INTEGER) throw malformed()
        return value
      }
      factor *= 128
    }
  }
  const n = varint()
  if (n === 0) {
    if (at !== end) throw malformed()
    return 0
  }
  let instant = unzigzag(varint())
  if (Math.abs(instant) >= latest) throw malformed()
  const planes = bytes[at++] as number
  const k = bytes[at++] as number
  if (planes > maxPlanes || k > 127 || at > end) throw malformed()
  const dictionary = new Float64Array(k)
  for (let i = 0; i < k; i++) dictionary[i] = unzigzag(varint())
  const codes = k + 1
  const highCodes = Math.floor(256 / codes)
  const heads = at
  const low = heads + n
  let overflow = low + n * planes
  if (overflow > end) throw malformed()
  // The head byte's two parts, by table.
  const highOf = new Int16Array(256).fill(-1)
  const amountOf = new Uint8Array(256)
  for (let b = 0; b < highCodes * codes; b++) {
    highOf[b] = Math.floor(b / codes)
    amountOf[b] = b % codes
  }
  const escapedHigh = highCodes - 1
  const scale = 2 ** (8 * planes)
  at = overflow
  for (let i = 0; i < n; i++) {
    const head = bytes[heads + i] as number
    let high = highOf[head] as number
    if (high < 0) throw malformed()
    if (high === escapedHigh) high = unzigzag(varint())
    let rest = 0
    for (let p = 0, o = low + i; p < planes; p++, o += n) rest = rest * 256 + (bytes[o] as number)
    instant += high * scale + rest
    if (!(instant > -latest && instant < latest)) throw malformed()
    const code = amountOf[head] as number
    record(instant, code < k ? (dictionary[code] as number) : unzigzag(varint()))
  }
  overflow = at
  if (overflow !== end) throw malformed()
  return n
}

// ---------------------------------------------------------------------------------------------------
// Version 2 (`application/vnd.laundry.usage; v=2`, usage-compact.md "Version 2"): the year's day sums
// and day counts first, then a whole version 1 answer of the same records, byte for byte. What the
// first screen shows (both totals, both charts) follows from the leading sums alone, so the app paints
// it once the first 1–2 kB have arrived, and the rest when the records are complete.

/** The first bytes of a version 2 answer. */
const magicV2 = [0x4c, 0x55, 2] as const

/** The leading sums of a version 2 answer: one entry per UTC day of the year, 1 January first. */
export interface LeadingSums {
  year: number
  /** The sum of each day (refunds lower it), in won. */
  daySums: number[]
  /** The number of sales (amount above zero) of each day. */
  dayCounts: number[]
}

const dayMs = 86_400_000
const yearDays = (year: number) => (Date.UTC(year + 1, 0, 1) - Date.UTC(year, 0, 1)) / dayMs

/**
 * The day sums and counts of the records of one UTC year (records of another year add nothing), as the
 * bucketing worker sums them from the records.
 */
export function leadingSums(
  year: number,
  createdAt: ArrayLike<number>,
  amounts: ArrayLike<number>,
): LeadingSums {
  const days = yearDays(year)
  const daySums = Array<number>(days).fill(0)
  const dayCounts = Array<number>(days).fill(0)
  const start = Date.UTC(year, 0, 1)
  for (let i = 0; i < createdAt.length; i++) {
    const day = Math.floor(((createdAt[i] as number) - start) / dayMs)
    if (!(day >= 0 && day < days)) continue
    const amount = amounts[i] as number
    daySums[day] = (daySums[day] as number) + amount
    if (amount > 0) dayCounts[day] = (dayCounts[day] as number) + 1
  }
  return { year, daySums, dayCounts }
}

/** Encodes a version 2 answer: the given leading sums, then `encodeUsage` of the records. */
export function encodeUsageV2(sums: LeadingSums, records: Uint8Array): Uint8Array<ArrayBuffer> {
  const days = sums.daySums.length
  const out = new Writer(16 + days * 6 + records.length)
  for (const byte of magicV2) out.byte(byte)
  out.varint(sums.year)
  out.varint(days)
  for (const sum of sums.daySums) {
    checkAmount(sum)
    out.varint(zigzag(sum))
  }
  for (const count of sums.dayCounts) out.varint(count)
  out.reserve(records.length)
  out.bytes.set(records, out.at)
  out.at += records.length
  return out.bytes.slice(0, out.at)
}

/** The leading sums read so far, and where in the last piece read the version 1 answer begins. */
export type LeadingRead = { sums: LeadingSums; recordsAt: number } | undefined

/**
 * Reads the leading sums of a version 2 answer of `year` as its pieces arrive, with no copy: each call
 * reads one more piece, in order, and returns undefined while the sums are not complete, then the sums
 * and where in that piece the version 1 answer begins (not to be called again). Throws on bytes that
 * cannot begin a version 2 answer of `year`.
 */
export function leadingReader(year: number): (piece: Uint8Array) => LeadingRead {
  const days = yearDays(year)
  // The magic bytes (each a varint of one byte), the year, D, then D sums and D counts: varints all.
  const header = [...magicV2, year, days]
  const values: number[] = []
  let value = 0
  let factor = 1
  return (piece) => {
    for (let at = 0; at < piece.length; ) {
      const byte = piece[at++] as number
      value += (byte & 127) * factor
      factor *= 128
      if (factor > largest * 128) throw malformed()
      if (byte < 128) {
        if (values.length < 5 && value !== header[values.length]) throw malformed()
        values.push(value)
        value = 0
        factor = 1
        if (values.length === 5 + 2 * days)
          return {
            sums: {
              year,
              daySums: values.slice(5, 5 + days).map(unzigzag),
              dayCounts: values.slice(5 + days),
            },
            recordsAt: at,
          }
      }
    }
    return undefined
  }
}

/** The leading sums of a version 2 answer from its first bytes, as `leadingReader` reads them in one piece. */
export const readLeadingSums = (bytes: Uint8Array, year: number): LeadingRead => leadingReader(year)(bytes)
