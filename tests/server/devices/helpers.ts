// What the devices' tests share: a store with an owner and a staff member, signed in; a device added
// and paired; batches posted.
import { addStore, addUser, grant } from '../../../server/db/accounts.ts'
import { bearer, type TestApp } from '../test-app.ts'

export const ownerPhone = '01012345678'
export const staffPhone = '01087654321'

/** A store with an owner and a staff member, and another store the owner does not own; their tokens. */
export async function storeWithPeople(app: TestApp) {
  const ownerId = await addUser(app.db, { phone: ownerPhone, name: '김사장' })
  const staffId = await addUser(app.db, { phone: staffPhone, name: '이직원' })
  const storeId = await addStore(app.db, { name: '역삼점' })
  const otherStoreId = await addStore(app.db, { name: '남의 매장' })
  await grant(app.db, ownerPhone, storeId, 'owner')
  await grant(app.db, staffPhone, storeId, 'staff')
  const owner = (await app.tokens.start(ownerId)).access
  const staff = (await app.tokens.start(staffId)).access
  return { storeId, otherStoreId, owner, staff }
}

export async function addDevice(app: TestApp, storeId: number, owner: string, name = '계산대 옆 상자') {
  const response = await app.inject({
    method: 'POST',
    url: `/api/v0/store/${storeId}/devices`,
    headers: bearer(owner),
    payload: { name },
  })
  if (response.statusCode !== 201) throw new Error(`add device: ${response.statusCode} ${response.body}`)
  return response.json() as { id: number; name: string; pairingCode: string; expiresAt: string }
}

export async function pairedDevice(app: TestApp, storeId: number, owner: string, name?: string) {
  const { pairingCode } = await addDevice(app, storeId, owner, name)
  const response = await app.inject({
    method: 'POST',
    url: '/api/v0/device/pair',
    payload: { code: pairingCode },
  })
  if (response.statusCode !== 200) throw new Error(`pair: ${response.statusCode} ${response.body}`)
  return response.json() as { deviceId: number; storeId: number; key: string }
}

export interface SaleIn {
  id: string | number
  createdAt: string
  amount: number
  machine?: string
  method?: string
  refundOf?: string | number
}

export const postSales = (
  app: Pick<TestApp, 'inject'>,
  key: string,
  batchKey: string | undefined,
  sales: unknown[],
  extra: Record<string, unknown> = {},
) =>
  app.inject({
    method: 'POST',
    url: '/api/v0/device/sales',
    headers: { ...bearer(key), ...(batchKey === undefined ? {} : { 'idempotency-key': batchKey }) },
    payload: { sales, ...extra },
  })

/** The device sales stored for a store, as `id createdAt amount` lines in id order. */
export async function storedSales(app: TestApp, storeId: number) {
  const { sql } = await import('drizzle-orm')
  const { queryRows } = await import('../../../server/db/client.ts')
  const rows = await queryRows<{ line: string }>(
    app.db,
    sql`select device_id || ' ' || device_sale_id || ' ' || to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || ' ' || amount as line
        from usages where store_id = ${storeId} and device_id is not null order by device_id, device_sale_id`,
  )
  return rows.map((row) => row.line)
}
