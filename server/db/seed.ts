// Demo data for an empty database: three accounts, three stores, and realistic usage records from
// 1 January of last year up to now. The records are generated inside the database from MD5 hashes of
// (store, day, n), so the same day always gets the same records, and no rows cross from JavaScript.
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { count, sql } from 'drizzle-orm'
import { amountWeights, hourWeights, monthFactor, weekdayFactor } from '../../device/simulate.ts'
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
const intArray = (values: number[]) => sql.raw(`array[${values.join(',')}]::int[]`)
const numericArray = (values: number[]) => sql.raw(`array[${values.join(',')}]::numeric[]`)

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
 * benchmark's owner of many stores).
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
  await db.execute(sql`
    with days as (
      select day::date as day, extract(isodow from day)::int as dow, extract(month from day)::int as month
      from generate_series(${from}::date, ${kstDate(now)}::date, interval '1 day') as day
    ),
    plan as (
      select s.store_id, d.day,
        round(s.per_day * (${numericArray(weekdayFactor)})[d.dow] * (${numericArray(monthFactor)})[d.month]
          * (0.8 + 0.4 * ((('x' || substr(md5('day:' || s.store_id || ':' || d.day), 1, 4))::bit(16)::int) / 65535.0))
        )::int as cycles
      from (values ${sql.raw(plan)}) as s(store_id, per_day) cross join days d
    ),
    cycles as (
      select p.store_id, p.day, md5(p.store_id || ':' || p.day || ':' || n) as h
      from plan p cross join lateral generate_series(1, p.cycles) as n
    ),
    records as (
      select store_id,
        ((day + make_interval(
            hours => (${intArray(hours)})[1 + ('x' || substr(h, 1, 7))::bit(28)::int % ${hours.length}],
            mins => ('x' || substr(h, 8, 4))::bit(16)::int % 60,
            secs => (('x' || substr(h, 12, 4))::bit(16)::int % 60000) / 1000.0
          )) - interval '9 hours') at time zone 'UTC' as created_at,
        (${intArray(amounts)})[1 + ('x' || substr(h, 16, 7))::bit(28)::int % ${amounts.length}] as amount
      from cycles
    )
    insert into usages (store_id, created_at, amount)
    select store_id, created_at, amount from records
    where created_at >= ${`${from}T00:00:00Z`} and created_at <= ${now.toISOString()}
    order by store_id, created_at`)
}
