// The events of the overview's stream (docs/product.md §8.5), one module for the route and the bench
// (bench/overview-hour.ts): with `stores=changed` only the stores whose shown figures moved (decision
// 151), and with `clock=1` as well only what moved of them, never the clock's own moves (decision 237).
import type {
  StoreChange,
  StoreOverview,
  StoresOverviewAnswer,
  StoresOverviewChanged,
} from '../../contract/api.ts'
import { clockFrom } from '../../domain/overview-clock.ts'
import type { OverviewMade } from './overview.ts'

/** One read of the overview, as `storesOverview.read` gives it. */
export interface OverviewRead {
  answer: StoresOverviewAnswer
  shown: string[]
  made: OverviewMade
}

/** What a stream of the overview has sent: the figures' token (`rev`) the client now shows, and each store's shown figures. */
export interface OverviewSent {
  token: number
  shown: Map<number, string>
  /** With `clock=1`: each store's parts as the client keeps them (decision 237); null before the first event. */
  parts?: Map<number, Record<string, string>> | null
}

/** What the client keeps once it took a read: its stores' shown figures, and with `clock=1` their parts. */
function took(sent: OverviewSent, read: OverviewRead, token: number) {
  sent.token = token
  sent.shown = new Map(read.answer.stores.map(({ id }, at) => [id, read.shown[at] as string]))
  if (sent.parts !== undefined) sent.parts = new Map(read.made.stores.map(({ id, parts }) => [id, parts]))
}

/**
 * The event the overview's stream sends after a read (decisions 133 and 151): null while the figures on
 * screen are the same (`rev`), else the overview, or with `changedOnly` (and not the stream's first
 * event) only the stores whose figures on screen moved, with `after`, the rev the client shows. `sent`
 * moves to what the client shows once it has taken the event.
 */
export function overviewEvent(
  sent: OverviewSent,
  read: OverviewRead,
  changedOnly: boolean,
): StoresOverviewAnswer | StoresOverviewChanged | null {
  const { answer, shown } = read
  if (answer.rev === sent.token) return null
  const changed = changedOnly
    ? {
        ...answer,
        after: sent.token,
        stores: answer.stores.filter(({ id }, at) => sent.shown.get(id) !== shown[at]),
      }
    : answer
  took(sent, read, answer.rev)
  return changed
}

/**
 * The event of a stream asked with `clock=1` (decision 237), whose `rev` is the token of what the rows
 * are made of. The first: nothing when the client keeps that already (its `after`), each store's clock
 * when it shows this very overview (`after` is its `rev`), else the whole overview with the clocks;
 * `whole` (the caller's stores changed) likewise the whole. After it: the stores of which anything
 * moved but the clock's own moves (a sale, a device, a new clock), each with only what moved.
 */
export function clockEvent(
  sent: OverviewSent,
  read: OverviewRead,
  first: boolean,
  whole: boolean,
): StoresOverviewAnswer | StoresOverviewChanged | null {
  const { answer, made } = read
  const at = Date.parse(answer.at)
  const clocks = new Map(made.stores.map(({ id, made }) => [id, clockFrom(made.clock, at)]))
  const kept = sent.parts
  let event: StoresOverviewAnswer | StoresOverviewChanged | null
  if (made.token === sent.token) event = null
  else if (first && !whole && sent.token === answer.rev)
    event = { at: answer.at, rev: made.token, after: sent.token, stores: stores(clocks, ['clock']) }
  else if (first || whole || !kept)
    event = {
      at: answer.at,
      rev: made.token,
      stores: answer.stores.map((store): StoreOverview => ({ ...store, clock: clocks.get(store.id) })),
    }
  else
    event = {
      at: answer.at,
      rev: made.token,
      after: sent.token,
      stores: made.stores.flatMap(({ id, parts }) => {
        const moved = Object.keys(parts).filter((part) => kept.get(id)?.[part] !== parts[part])
        return moved.length ? stores(new Map([[id, clocks.get(id)]]), moved) : []
      }),
    }
  took(sent, read, made.token)
  return event

  /** The stores of `which` with only the parts named (the clock as sent at the event's instant). */
  function stores(which: Map<number, unknown>, parts: string[]): StoreChange[] {
    return made.stores
      .filter(({ id }) => which.has(id))
      .map(({ id, made: row }) => {
        const change: Record<string, unknown> = { id }
        // The clock whole (its quiet rule in it), else its quiet rule alone when only that moved.
        for (const part of parts)
          if (part === 'clock') change.clock = clocks.get(id)
          else if (part === 'quiet') change.quiet ??= parts.includes('clock') ? undefined : row.clock.quiet
          else change[part] = row[part as keyof typeof row]
        if (change.quiet === undefined) delete change.quiet
        return change as StoreChange
      })
  }
}
