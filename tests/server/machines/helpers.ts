// What the machines' tests share: a store with an owner and a staff member, a stranger, a device; records
// and machine rows written straight into the database (the devices' calls that write them are not
// what these tests are about).
import { sql } from 'drizzle-orm'
import type { PaymentMethod } from '../../../domain/machines.ts'
import { addStore, addUser, grant } from '../../../server/db/accounts.ts'
import { devices, machines, usages } from '../../../server/db/schema.ts'
import type { TestApp } from '../test-app.ts'

export async function storeWithPeople(app: TestApp) {
  const ownerId = await addUser(app.db, { phone: '01012345678', name: '김사장' })
  const staffId = await addUser(app.db, { phone: '01087654321', name: '이직원' })
  const strangerId = await addUser(app.db, { phone: '01055556666', name: '남' })
  const storeId = await addStore(app.db, { name: '역삼점' })
  const otherStoreId = await addStore(app.db, { name: '남의 매장' })
  await grant(app.db, '01012345678', storeId, 'owner')
  await grant(app.db, '01087654321', storeId, 'staff')
  await grant(app.db, '01055556666', otherStoreId, 'owner')
  const [device] = await app.db
    .insert(devices)
    .values({ storeId, name: '계산대' })
    .returning({ id: devices.id })
  if (!device) throw new Error('no device')
  return {
    storeId,
    otherStoreId,
    deviceId: device.id,
    owner: (await app.tokens.start(ownerId)).access,
    staff: (await app.tokens.start(staffId)).access,
    stranger: (await app.tokens.start(strangerId)).access,
  }
}

export interface RecordIn {
  at: string
  amount: number
  machine: string | null
  method: PaymentMethod | null
  /** A device's record (with its own id), else an imported one. */
  fromDevice: boolean
  /** For a device's refund: the id of the sale it refunds. */
  refundOf?: string | null
}

export async function insertRecords(app: TestApp, storeId: number, deviceId: number, records: RecordIn[]) {
  if (records.length === 0) return
  await app.db.insert(usages).values(
    records.map((record, i) => ({
      storeId,
      createdAt: new Date(record.at),
      amount: record.amount,
      machine: record.machine,
      method: record.method,
      ...(record.fromDevice
        ? { deviceId, deviceSaleId: `s${i}`, refundOf: record.amount < 0 ? (record.refundOf ?? null) : null }
        : { sourceId: `i${i}` }),
    })),
  )
}

export interface MachineIn {
  machine: string
  name?: string | null
  kind?: 'washer' | 'dryer' | 'other' | null
  reportedKind?: 'washer' | 'dryer' | 'other' | null
  state?: 'idle' | 'running' | 'error' | 'offline' | null
  code?: string | null
  lastSaleAt?: string | null
}

export async function insertMachines(app: TestApp, storeId: number, rows: MachineIn[]) {
  await app.db.insert(machines).values(
    rows.map((row) => ({
      storeId,
      machine: row.machine,
      name: row.name ?? null,
      kind: row.kind ?? null,
      reportedKind: row.reportedKind ?? null,
      state: row.state ?? null,
      stateSince: row.state ? new Date('2026-02-01T00:00:00Z') : null,
      code: row.code ?? null,
      lastSaleAt: row.lastSaleAt ? new Date(row.lastSaleAt) : null,
      firstSeenAt: new Date('2026-01-01T00:00:00Z'),
    })),
  )
}

export async function clearStore(app: TestApp, storeId: number) {
  await app.db.execute(sql`delete from usages where store_id = ${storeId}`)
  await app.db.execute(sql`delete from machines where store_id = ${storeId}`)
}

/** The CSV's rows as arrays of cells, its BOM and CRLF checked. */
export function csvRows(body: Buffer): string[][] {
  const text = body.toString('utf8')
  if (!text.startsWith('\ufeff')) throw new Error('no byte order mark')
  const lines = text.slice(1).split('\r\n')
  if (lines.at(-1) !== '') throw new Error('the last line does not end in CRLF')
  if (lines.slice(0, -1).some((line) => line.includes('\n'))) throw new Error('a bare LF')
  return lines.slice(0, -1).map((line) => line.split(','))
}
