// An hour of the overview's stream (decisions 133 and 151), counted event by event on the server's own
// code and clock: the demo data (server/db/seed.ts) up to the busiest hour of the owner's 3 stores in
// the last 4 weeks, then that hour's sales put back one by one at their instants, the overview read
// (`storesOverview.read`) at each sale and at each 25 s heartbeat on the moving clock, and the events
// the stream would send (`overviewEvent`, the route's own) counted. The clock moves the figures too:
// the usual and the month before grow with the time of day, so the whole percents the rows show move
// between sales; a real browser would have to wait the hour to see them (bench/live-app.ts measures
// the wire for the sales it makes and one idle round, and takes its per-event framing from there).
// Prints one line a form (every store in each event; only the stores that changed) and JSON last.
//   node --import tsx bench/overview-hour.ts
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import { openDatabase, queryRows } from '../server/db/client.ts'
import { demoAccounts, seedDemoIfEmpty } from '../server/db/seed.ts'
import { storesOverview } from '../server/usage/overview.ts'
import {
  clockEvent,
  type OverviewRead,
  type OverviewSent,
  overviewEvent,
} from '../server/usage/overview-event.ts'

/** The stream's heartbeat (server/live/stream.ts), and an hour. */
const heartbeatMs = 25_000
const hourMs = 3_600_000

const imageDir = mkdtempSync(path.join(tmpdir(), 'overview-hour-'))
const database = await openDatabase({ pgliteDir: null })
const { db } = database
try {
  // The demo data up to a week ago: its last 4 weeks hold a busiest hour that has a full history.
  const end = new Date(Date.now() - 7 * 24 * hourMs)
  // From the start of the month 3 months before: every figure of the overview over the last 4 weeks
  // (the usual's 4 weeks, the quiet rule's 8, the month before) has its whole history.
  const history = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() - 3, 1))
    .toISOString()
    .slice(0, 10)
  await seedDemoIfEmpty(db, imageDir, end, history)
  const [owner] = await queryRows<{ id: number }>(
    db,
    sql`select id from users where phone = ${demoAccounts.owner}`,
  )
  const userId = Number(owner?.id)
  const [busiest] = await queryRows<{ hour: string }>(
    db,
    sql`select date_trunc('hour', u.created_at) as hour from usages u
        join memberships m on m.store_id = u.store_id and m.user_id = ${userId}
        where u.created_at >= ${new Date(end.getTime() - 28 * 24 * hourMs).toISOString()}::timestamptz
        group by 1 order by count(*) desc limit 1`,
  )
  const from = new Date(String(busiest?.hour)).getTime()
  const sales = await queryRows<{ store_id: number; created_at: string; amount: number }>(
    db,
    sql`delete from usages where created_at >= ${new Date(from).toISOString()}::timestamptz
        returning store_id, created_at, amount`,
  )
  const hour = sales
    .map((sale) => ({
      storeId: Number(sale.store_id),
      at: new Date(sale.created_at).getTime(),
      amount: Number(sale.amount),
    }))
    .filter((sale) => sale.at < from + hourMs)
    .sort((a, b) => a.at - b.at)

  // The three forms of the stream over the hour from the same reads: every store in each event, only
  // the stores that changed, and with the clocks only what moved of them (decision 237). Their events
  // come at different reads, so their comments do too.
  const overview = storesOverview(db)
  const first = await overview.read(userId, new Date(from))
  const start = (): OverviewSent => ({
    token: first.answer.rev,
    shown: new Map(first.answer.stores.map(({ id }, at) => [id, first.shown[at] as string])),
  })
  type Counts = {
    saleEvents: number
    clockEvents: number
    comments: number
    eventBytes: number
    largest: number
  }
  const counts = (): Counts => ({ saleEvents: 0, clockEvents: 0, comments: 0, eventBytes: 0, largest: 0 })
  const forms = [
    { event: (sent: OverviewSent, read: OverviewRead) => overviewEvent(sent, read, false) },
    { event: (sent: OverviewSent, read: OverviewRead) => overviewEvent(sent, read, true) },
    { event: (sent: OverviewSent, read: OverviewRead) => clockEvent(sent, read, false, false) },
  ].map(({ event }) => ({ event, sent: start(), counts: counts(), lastWrite: from }))
  // The clocks' form sends its first event at once: each store's clock, the client showing the first answer.
  const clockForm = forms[2] as (typeof forms)[number]
  clockForm.sent.parts = null
  const firstEvent = clockEvent(clockForm.sent, first, true, false)
  const firstEventBytes = firstEvent ? Buffer.byteLength(`data: ${JSON.stringify(firstEvent)}\n\n`) : 0
  // One timeline for the three: each sale wakes every stream, and each stream reads again 25 s after it
  // last wrote (its heartbeat: an event if the figures moved, else a comment).
  const due = (form: (typeof forms)[number]) => form.lastWrite + heartbeatMs
  for (let next = 0; ; ) {
    const sale = hour[next]
    const beat = Math.min(...forms.map(due))
    const bySale = sale !== undefined && sale.at <= beat
    const now = bySale ? sale.at : beat
    if (now >= from + hourMs) break
    if (bySale) {
      await db.execute(
        sql`insert into usages (store_id, created_at, amount) values (${sale.storeId}, ${new Date(sale.at).toISOString()}::timestamptz, ${sale.amount})`,
      )
      next += 1
    }
    const shown = await overview.read(userId, new Date(now))
    for (const form of forms) {
      if (!bySale && due(form) > now) continue
      const data = form.event(form.sent, shown)
      if (data) {
        const bytes = Buffer.byteLength(`data: ${JSON.stringify(data)}\n\n`)
        form.counts.eventBytes += bytes
        form.counts.largest = Math.max(form.counts.largest, bytes)
        form.counts[bySale ? 'saleEvents' : 'clockEvents'] += 1
        form.lastWrite = now
      } else if (!bySale) {
        form.counts.comments += 1
        form.lastWrite = now
      }
    }
  }
  const [whole, changed, clocks] = forms.map((form) => form.counts) as [Counts, Counts, Counts]
  const at = new Date(from).toISOString()
  for (const [form, counts] of [
    ['every store in each event', whole],
    ['only the stores that changed (stores=changed)', changed],
    ['only what moved, the clocks sent once (stores=changed&clock=1)', clocks],
  ] as const)
    console.log(
      `overview stream, the busiest hour of the demo owner's ${first.answer.stores.length} stores (${at}, ${hour.length} sales), ${form}: ` +
        `${counts.saleEvents} events at sales and ${counts.clockEvents} moved by the clock alone, ${(counts.eventBytes / 1000).toFixed(1)} kB of events (largest ${counts.largest} B), ${counts.comments} comments`,
    )
  console.log(`  with clock=1 the stream's first event (each store's clock): ${firstEventBytes} B`)
  console.log(JSON.stringify({ hourStart: at, sales: hour.length, whole, changed, clocks, firstEventBytes }))
} finally {
  await database.close()
  rmSync(imageDir, { recursive: true, force: true })
}
