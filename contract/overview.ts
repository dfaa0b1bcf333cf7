// The stores overview's call (GET /api/v0/stores/overview, docs/product.md §8.5) and its stream's
// events, apart from api.ts (which exports them too): the answer, the held call's forms, and the clock
// that lets the app move a row between events (decision 237). Types only in the web app.
import { type Static, Type } from 'typebox'

/** An instant (ISO 8601 in UTC), or null. */
const Instant = Type.Union([Type.String(), Type.Null()])
/**
 * A sum in won (refunds included) and a number of sales; the usual and prorated hours make them fractional.
 * No `sum` for a member the owner hides won amounts from (docs/product.md §15).
 */
const Totals = Type.Object({ sum: Type.Optional(Type.Number()), count: Type.Number() })
/**
 * The hours of one UTC day a figure grows by as the clock moves (decision 237): the sum and count before
 * hour `from` of the clock, then each hour's from there (those of the usual summed over its weeks).
 */
const DayHours = Type.Object({
  sum: Type.Number(),
  count: Type.Number(),
  sums: Type.Array(Type.Number()),
  counts: Type.Array(Type.Number()),
})
/**
 * The quiet rule within a clock (decision 237): null, not quiet before the clock ends; `at`, the instant
 * the store turns quiet without a sale (the clock holds until then); or, quiet within the clock, its
 * last sale (epoch ms), the quiet model's expected sales an hour from the cell (weekday × 24 + hour,
 * UTC) of that sale's hour on (168 at most), its level and threshold.
 */
const ClockQuiet = Type.Union([
  Type.Object({ at: Type.Integer() }),
  Type.Object({
    since: Type.Integer(),
    cell: Type.Integer(),
    cells: Type.Array(Type.Number()),
    level: Type.Number(),
    threshold: Type.Number(),
  }),
  Type.Null(),
])
/**
 * What lets the app move a store's row with the clock itself (decision 237, `domain/overview-clock.ts`):
 * sent only on the overview's stream asked with `clock=1`. It holds from the hour `from` of its UTC day
 * until `until` (epoch ms) or its quiet rule's `at`, and with the store's `today`, `month` and `lastSaleAt` gives the usual, the
 * month before and the quiet rule at any instant in between, as the server computes them.
 */
export const StoreClock = Type.Object({
  until: Type.Integer(),
  from: Type.Integer({ minimum: 0, maximum: 23 }),
  /** The same hours of the same weekday of the 4 weeks before, summed, and how many weeks there were; null: none. */
  usual: Type.Union([Type.Object({ ...DayHours.properties, weeks: Type.Integer() }), Type.Null()]),
  /** The month before: before today's elapsed day, then its hours (none: the whole month, a shorter one); null: no data. */
  previous: Type.Union([DayHours, Type.Null()]),
  quiet: ClockQuiet,
})
export type StoreClock = Static<typeof StoreClock>
/**
 * One store in GET /api/v0/stores/overview (docs/product.md decisions 97–99): what the stores overview
 * shows, computed by the server with the app's own rules (src/figures/) from the store's records.
 */
export const StoreOverview = Type.Object({
  id: Type.Integer(),
  /** Today (the UTC day) up to the answer's instant, the current hour whole. */
  today: Totals,
  /** The average of the same weekday of the 4 weeks before, up to the same time of day; null without data. */
  usual: Type.Union([Totals, Type.Null()]),
  /** The UTC month up to the answer's instant. */
  month: Totals,
  /** The month before up to the same elapsed time; null without data. */
  previousMonth: Type.Union([Totals, Type.Null()]),
  /** The latest sale of the current UTC year (ISO 8601 in UTC), as the app shows it; null without one. */
  lastSaleAt: Instant,
  /** The quiet-store rule: since when (ISO 8601 in UTC) and how many sales were usually expected meanwhile; null when not quiet. */
  quiet: Type.Union([Type.Object({ since: Type.String(), expected: Type.Integer() }), Type.Null()]),
  /** Paired devices not revoked, and those of them not heard from in 3 heartbeats (decision 71). */
  devices: Type.Object({ total: Type.Integer(), offline: Type.Integer() }),
  /** Only in the events of a stream asked with `clock=1` (decision 237). */
  clock: Type.Optional(StoreClock),
})
export type StoreOverview = Static<typeof StoreOverview>
/**
 * A store in an event of a stream asked with `clock=1` after its first whole one (decision 237): only
 * what moved since the event before (today, the month, the last sale, the devices, the clock); the app
 * moves the rest itself.
 */
export const StoreChange = Type.Object({
  id: Type.Integer(),
  today: Type.Optional(Totals),
  month: Type.Optional(Totals),
  lastSaleAt: Type.Optional(Instant),
  devices: Type.Optional(Type.Object({ total: Type.Integer(), offline: Type.Integer() })),
  clock: Type.Optional(StoreClock),
  /** The clock's quiet rule alone, when only it moved (a sale moves the instant a store would turn quiet). */
  quiet: Type.Optional(ClockQuiet),
})
export type StoreChange = Static<typeof StoreChange>
export const StoresOverviewAnswer = Type.Object({
  /** The instant the figures were computed for (ISO 8601 in UTC). */
  at: Type.String(),
  /**
   * Our addition for the live overview (decision 110): a token of what the overview shows of these
   * figures (not of `at`); the same shown figures give the same token. Pass it as `after` to be
   * answered when they would differ.
   */
  rev: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
  /** The caller's stores, in the profile's order. */
  stores: Type.Array(StoreOverview),
})
export type StoresOverviewAnswer = Static<typeof StoresOverviewAnswer>
/** A held overview call that ends with the figures as `after` says (decision 110): keep them, ask again. */
export const StoresOverviewUnchanged = Type.Object({
  at: Type.String(),
  rev: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
  unchanged: Type.Literal(true),
})
export type StoresOverviewUnchanged = Static<typeof StoresOverviewUnchanged>
/**
 * An event of the overview's stream asked with `stores=changed` (decision 151), after its first: only the
 * stores whose figures on screen changed since the event before, whose `rev` is `after`; the others stay
 * as that event had them. Never a held call's JSON answer, and never when the caller's stores changed.
 */
export const StoresOverviewChanged = Type.Object({
  at: Type.String(),
  rev: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
  after: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
  /** Whole stores; with `clock=1` only what moved of each (decision 237). */
  stores: Type.Array(Type.Union([StoreOverview, StoreChange])),
})
export type StoresOverviewChanged = Static<typeof StoresOverviewChanged>
// The changed stores first: an answer of every store has no `after`, so it is never taken for one.
export const StoresOverviewReply = Type.Union([
  StoresOverviewChanged,
  StoresOverviewAnswer,
  StoresOverviewUnchanged,
])
export type StoresOverviewReply = Static<typeof StoresOverviewReply>
export const StoresOverviewQuery = Type.Object({
  after: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description:
        "The `rev` of the overview the client shows: answered at once when it is not the current one's.",
    }),
  ),
  wait: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 25,
      default: 0,
      description:
        'Seconds to hold the call while the figures stay as `after` says (0: answer at once); needs `after`.',
    }),
  ),
  stores: Type.Optional(
    Type.Literal('changed', {
      description:
        'Only for the stream (`Accept: text/event-stream`): each event after the first carries only the stores whose figures changed, with `after` the `rev` of the event before.',
    }),
  ),
  clock: Type.Optional(
    Type.Literal(1, {
      description:
        "Only for the stream, with `stores=changed` (decision 237): each store comes with its `clock`, what moves its figures with the time of day, and the events carry only what moved (a sale, a device, a new day), never the clock's own moves; `rev` is then a token of what the rows are made of.",
    }),
  ),
})
export type StoresOverviewQuery = Static<typeof StoresOverviewQuery>
