// What the alert rules' tests share: a store with 8 weeks of a steady rhythm (a sale every 10 minutes
// from 01:00 to 11:50 UTC, 10:00–20:50 KST, every day), its people subscribed to a fake push service.
import { sql } from 'drizzle-orm'
import { queryRows } from '../../../server/db/client.ts'
import { storeWithPeople } from '../devices/helpers.ts'
import { browserSubscription } from '../push/helpers.ts'
import { bearer, type TestApp } from '../test-app.ts'

export const pushOrigin = 'https://push.example.net'
export const pushEnv = { PUSH_ALLOWED_ORIGINS: pushOrigin }

/** Sales every 10 minutes from 01:00 to 11:50 UTC of every day in [from, to). */
export async function steadySales(app: TestApp, storeId: number, from: string, to: string) {
  await app.db.execute(
    sql`insert into usages (store_id, created_at, amount)
        select ${storeId}, t, 3000 from generate_series(${from}::timestamptz, ${to}::timestamptz - interval '1 minute', interval '10 minutes') t
        where extract(hour from t at time zone 'UTC') between 1 and 11`,
  )
}

export async function sale(app: TestApp, storeId: number, at: string, amount = 3000) {
  await app.db.execute(
    sql`insert into usages (store_id, created_at, amount) values (${storeId}, ${at}::timestamptz, ${amount})`,
  )
}

export async function subscribe(app: TestApp, access: string, id: string) {
  const subscription = browserSubscription(`${pushOrigin}/${id}`)
  const response = await app.inject({
    method: 'PUT',
    url: '/api/v0/push/subscription',
    headers: bearer(access),
    payload: subscription.json,
  })
  if (response.statusCode !== 204) throw new Error(`subscribe: ${response.statusCode} ${response.body}`)
  return subscription.json.endpoint
}

/** The owner's store with 8 weeks of history up to `until` (the last sale just before it), the owner subscribed. */
export async function quietReadyStore(app: TestApp, until: string) {
  const people = await storeWithPeople(app)
  const start = new Date(new Date(until).getTime() - 8 * 7 * 24 * 3_600_000 - 24 * 3_600_000).toISOString()
  await steadySales(app, people.storeId, start, until)
  const ownerEndpoint = await subscribe(app, people.owner, 'owner')
  return { ...people, ownerEndpoint }
}

export async function alertRows(app: TestApp) {
  return queryRows<{
    user_id: number
    store_id: number | null
    kind: string
    episode: string
    state: string
    title: string
    body: string
    tag: string
  }>(app.db, sql`select user_id, store_id, kind, episode, state, title, body, tag from alerts order by id`)
}
