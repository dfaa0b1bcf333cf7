// What the alert rules' tests share: a store with 8 weeks of a steady rhythm (a sale every 10 minutes
// from 01:00 to 11:50 UTC, 10:00–20:50 KST, every day), its people subscribed to a fake push service;
// sales taking a store's washers and dryers in turn.
import { sql } from 'drizzle-orm'
import { type Db, queryRows } from '../../../server/db/client.ts'
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

/**
 * For the machine-silent rule: a sale every 2 minutes from 01:00 to 11:59 UTC in [from, until], taking
 * the machines of `turns` in turn, none on W3 from `deadFrom`; then the rows of W1–W3 (washers) and
 * D1, D2 (dryers) with their last sales (W3's too, null when it never sold).
 */
export async function machineSales(
  db: Db,
  storeId: number,
  {
    from,
    until,
    deadFrom,
    turns = ['W1', 'W2', 'W3', 'D1', 'D2'],
  }: { from: string; until: string; deadFrom?: string; turns?: string[] },
) {
  await db.execute(
    sql`insert into usages (store_id, created_at, amount, machine)
        select * from (select ${storeId}::int, t, 3000,
            (${`{${turns.join(',')}}`}::text[])[1 + (extract(epoch from t)::bigint / 120) % ${turns.length}] as machine
          from generate_series(${from}::timestamptz, ${until}::timestamptz, interval '2 minutes') t
          where extract(hour from t at time zone 'UTC') between 1 and 11) s
        where not (s.machine = 'W3' and s.t >= ${deadFrom ?? 'infinity'}::timestamptz)`,
  )
  await db.execute(
    sql`insert into machines (store_id, machine, reported_kind, first_seen_at, last_sale_at)
        select ${storeId}::int, m, case when m like 'W%' then 'washer' else 'dryer' end, ${from}::timestamptz,
          (select max(created_at) from usages where store_id = ${storeId} and machine = m)
        from unnest(array['W1', 'W2', 'W3', 'D1', 'D2']) m
        on conflict (store_id, machine) do update set last_sale_at = excluded.last_sale_at`,
  )
}
