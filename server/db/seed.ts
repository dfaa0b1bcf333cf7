// Demo data for an empty database: three accounts, three stores with their machines, and realistic usage
// records (each on a machine, with its payment method, a refund now and then) from 1 January of last
// year up to now. The records are generated inside the database from MD5 hashes of
// (store, day, n), so the same day always gets the same records, and no rows cross from JavaScript.
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { count, sql } from 'drizzle-orm'
import {
  amountWeights,
  hourWeights,
  machinePicks,
  machinesFor,
  methodPicks,
  monthFactor,
  weekdayFactor,
} from '../../device/simulate.ts'
import type { Db } from './client.ts'
import { memberships, stores, users } from './schema.ts'

export const demoAccounts = {
  owner: '01012345678',
  staff: '01022223333',
  noStores: '01000000000',
} as const

/** The demo stores, with their usual cycles a day (the live demo devices sell at that rhythm too). */
export const demoStores = [
  { name: '행복빨래방 역삼점', cyclesPerDay: 200, colour: '#2f80ed' },
  { name: '뽀송 코인세탁 선릉점', cyclesPerDay: 85, colour: '#27ae60' },
  { name: '하얀 셀프빨래방 대치점', cyclesPerDay: 45, colour: '#9b51e0' },
]

const expand = (weights: [number, number][]) =>
  weights.flatMap(([value, weight]) => Array<number>(weight).fill(value))
const numericArray = (values: number[]) => sql.raw(`array[${values.join(',')}]::numeric[]`)
/** A text literal: our own names (machines, kinds, methods), quoted as SQL would. */
const quote = (text: string) => `'${text.replaceAll("'", "''")}'`
// Constant arrays of the demo's own values, written as array literals into the statement's text: no
// parameter is involved (the queries' rule against lists of parameters, tests/server/db/no-in-lists.test.ts).
const intList = (values: number[]) => `${quote(`{${values.join(',')}}`)}::int[]`
const element = (text: string) => `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`
const textList = (values: string[]) => `${quote(`{${values.map(element).join(',')}}`)}::text[]`

const kstDate = (instant: Date) => new Date(instant.getTime() + 9 * 3600_000).toISOString().slice(0, 10)

function storeImage(initial: string, colour: string) {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96" viewBox="0 0 96 96">
<rect width="96" height="96" rx="20" fill="${colour}"/>
<rect x="22" y="18" width="52" height="60" rx="8" fill="#fff"/>
<circle cx="48" cy="52" r="17" fill="${colour}" opacity=".25"/><circle cx="48" cy="52" r="11" fill="${colour}"/>
<rect x="28" y="24" width="12" height="5" rx="2" fill="${colour}"/>
<text x="66" y="31" font-family="sans-serif" font-size="9" font-weight="700" fill="${colour}" text-anchor="middle">${initial}</text>
</svg>`
}

function storefrontImage(name: string, colour: string) {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="200" viewBox="0 0 320 200">
<rect width="320" height="200" fill="#eef3f8"/><rect x="20" y="40" width="280" height="150" fill="#fff" stroke="${colour}" stroke-width="4"/>
<rect x="20" y="20" width="280" height="36" fill="${colour}"/>
<text x="160" y="44" font-family="sans-serif" font-size="16" font-weight="700" fill="#fff" text-anchor="middle">${name}</text>
${[0, 1, 2, 3].map((i) => `<circle cx="${65 + i * 63}" cy="120" r="24" fill="none" stroke="${colour}" stroke-width="6"/>`).join('')}
</svg>`
}

function avatarImage(initial: string, colour: string) {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64">
<circle cx="32" cy="32" r="32" fill="${colour}"/>
<text x="32" y="41" font-family="sans-serif" font-size="26" font-weight="700" fill="#fff" text-anchor="middle">${initial}</text>
</svg>`
}

function writeImages(imageDir: string) {
  const dir = path.join(imageDir, 'demo')
  mkdirSync(dir, { recursive: true })
  demoStores.forEach((store, index) => {
    writeFileSync(path.join(dir, `store-${index + 1}.svg`), storeImage(String(index + 1), store.colour))
    writeFileSync(path.join(dir, `store-${index + 1}-front.svg`), storefrontImage(store.name, store.colour))
  })
  writeFileSync(path.join(dir, 'owner.svg'), avatarImage('김', '#f2994a'))
  writeFileSync(path.join(dir, 'staff.svg'), avatarImage('이', '#56ccf2'))
}

/** Loads the demo data if the database has no users; returns whether it did. */
export async function seedDemoIfEmpty(
  db: Db,
  imageDir: string,
  now: Date,
  /** The first day of the records (a date); 1 January of last year unless given (a benchmark's shorter history). */
  from?: string,
): Promise<boolean> {
  const [row] = await db.select({ n: count() }).from(users)
  if ((row?.n ?? 0) > 0) return false
  writeImages(imageDir)
  await db.transaction(async (tx) => {
    const [owner, staff] = await tx
      .insert(users)
      .values([
        { phone: demoAccounts.owner, name: '김사장', image: 'demo/owner.svg' },
        { phone: demoAccounts.staff, name: '이직원', image: 'demo/staff.svg' },
        { phone: demoAccounts.noStores, name: '박손님', image: null },
      ])
      .returning({ id: users.id })
    const created = await tx
      .insert(stores)
      .values(
        demoStores.map((store, i) => ({
          name: store.name,
          images: [`demo/store-${i + 1}.svg`, `demo/store-${i + 1}-front.svg`],
        })),
      )
      .returning({ id: stores.id })
    if (!owner || !staff || created.length !== demoStores.length) throw new Error('demo seed: insert failed')
    await tx
      .insert(memberships)
      .values([
        ...created.map(({ id }) => ({ userId: owner.id, storeId: id, role: 'owner' as const })),
        { userId: staff.id, storeId: created[1]?.id ?? 0, role: 'staff' as const },
      ])
    await insertDemoRecords(
      tx,
      created.map(({ id }, i) => ({ storeId: id, cyclesPerDay: demoStores[i]?.cyclesPerDay ?? 0 })),
      now,
      from,
    )
  })
  return true
}

/**
 * The demo rhythm's records of `stores` (each with its usual cycles a day) from `from` (a date, 1 January
 * of last year unless given) up to `now`, generated inside the database (the demo seed's, and a
 * benchmark's owner of many stores), with the stores' machines (device/simulate.ts `machinesFor`).
 *
 * Each record is a cycle's MD5 hash of (store, day, n): characters 1–7 its hour, 8–11 its minute, 12–15
 * its seconds, 16–22 its price (bench/calibration.ts makes the same instants), 23–26 its machine among
 * those charging that price (by weight), 27–30 its payment method (by share). On about 1.5 days a week
 * (a hash of the store and day) one cycle of the day is refunded 5–59 minutes later: a negative record
 * of its amount, machine and method (no `refund_of`: only a device's sale names the sale it refunds).
 */
export async function insertDemoRecords(
  db: Pick<Db, 'execute'>,
  stores: { storeId: number; cyclesPerDay: number }[],
  now: Date,
  from = `${now.getUTCFullYear() - 1}-01-01`,
) {
  const hours = expand(hourWeights.map((weight, hour): [number, number] => [hour, weight]))
  const amounts = expand(amountWeights)
  const plan = stores.map(({ storeId, cyclesPerDay }) => `(${storeId}, ${cyclesPerDay})`).join(', ')
  const prices = [...new Set(amounts)]
  const picks = stores
    .flatMap(({ storeId, cyclesPerDay }) =>
      prices.map(
        (price) => `(${storeId}, ${price}, ${textList(machinePicks(machinesFor(cyclesPerDay), price))})`,
      ),
    )
    .join(', ')
  const kinds = stores
    .flatMap(({ storeId, cyclesPerDay }) =>
      machinesFor(cyclesPerDay).map(({ machine, kind }) => `(${storeId}, ${quote(machine)}, ${quote(kind)})`),
    )
    .join(', ')
  // A cycle's price, time, machine (`m.names`: those at its price) and method from its hash `c.h` and
  // day `c.day`, for its sale and its refund alike (the refunds computed apart: the sales in one pass).
  const amountOf = sql.raw(
    `(${intList(amounts)})[1 + ('x' || substr(c.h, 16, 7))::bit(28)::int % ${amounts.length}]`,
  )
  const machineOf = sql.raw(
    `m.names[1 + ('x' || substr(c.h, 23, 4))::bit(16)::int % nullif(cardinality(m.names), 0)]`,
  )
  const createdAtOf = sql.raw(`((c.day + make_interval(
      hours => (${intList(hours)})[1 + ('x' || substr(c.h, 1, 7))::bit(28)::int % ${hours.length}],
      mins => ('x' || substr(c.h, 8, 4))::bit(16)::int % 60,
      secs => (('x' || substr(c.h, 12, 4))::bit(16)::int % 60000) / 1000.0
    )) - interval '9 hours') at time zone 'UTC'`)
  const methodOf = sql.raw(
    `(${textList(methodPicks)})[1 + ('x' || substr(c.h, 27, 4))::bit(16)::int % ${methodPicks.length}]`,
  )
  await db.execute(sql`
    with days as (
      select day::date as day, extract(isodow from day)::int as dow, extract(month from day)::int as month
      from generate_series(${from}::date, ${kstDate(now)}::date, interval '1 day') as day
    ),
    plan as (
      select s.store_id, d.day, md5('refund:' || s.store_id || ':' || d.day) as r,
        round(s.per_day * (${numericArray(weekdayFactor)})[d.dow] * (${numericArray(monthFactor)})[d.month]
          * (0.8 + 0.4 * ((('x' || substr(md5('day:' || s.store_id || ':' || d.day), 1, 4))::bit(16)::int) / 65535.0))
        )::int as cycles
      from (values ${sql.raw(plan)}) as s(store_id, per_day) cross join days d
    ),
    cycles as (
      select p.store_id, p.day, md5(p.store_id || ':' || p.day || ':' || n) as h,
        ('x' || substr(p.r, 1, 2))::bit(8)::int < 55
          and n = 1 + ('x' || substr(p.r, 3, 6))::bit(24)::int % p.cycles as refunded
      from plan p cross join lateral generate_series(1, p.cycles) as n
    ),
    priced as (
      select c.store_id, c.day, c.h, c.refunded, ${amountOf} as amount from cycles c
    ),
    sales as (
      select c.store_id, c.amount, ${createdAtOf} as created_at,
        ${machineOf} as machine,
        ${methodOf} as method
      from priced c join (values ${sql.raw(picks)}) as m(store_id, amount, names)
        on m.store_id = c.store_id and m.amount = c.amount
    ),
    refunds as (
      select c.store_id, ${createdAtOf} + make_interval(mins => 5 + ('x' || substr(c.h, 31, 2))::bit(8)::int % 55)
          as created_at, -c.amount as amount,
        ${machineOf} as machine,
        ${methodOf} as method
      from priced c join (values ${sql.raw(picks)}) as m(store_id, amount, names)
        on m.store_id = c.store_id and m.amount = c.amount
      where c.refunded
    ),
    records as (
      select store_id, created_at, amount, machine, method from sales
      union all
      select store_id, created_at, amount, machine, method from refunds
    ),
    stored as (
      insert into usages (store_id, created_at, amount, machine, method)
      select store_id, created_at, amount, machine, method from records
      where created_at >= ${`${from}T00:00:00Z`} and created_at <= ${now.toISOString()}
      order by store_id, created_at
      returning store_id, machine, created_at, amount
    )
    insert into machines (store_id, machine, reported_kind, first_seen_at, last_sale_at)
    select s.store_id, s.machine, k.kind, min(s.created_at), max(s.created_at) filter (where s.amount >= 0)
    from stored s join (values ${sql.raw(kinds)}) as k(store_id, machine, kind)
      on k.store_id = s.store_id and k.machine = s.machine
    group by s.store_id, s.machine, k.kind
    order by s.store_id, s.machine
    on conflict (store_id, machine) do update
      set last_sale_at = greatest(machines.last_sale_at, excluded.last_sale_at)`)
}
