import { describe, expect, it } from 'vitest'
import type { MachinesAnswer } from '../../../contract/machines.ts'
import { messages } from '../../../server/errors.ts'
import { checkEveryAnswer } from '../openapi-check.ts'
import { bearer, sharedTestApp, testClock } from '../test-app.ts'
import { csvRows, insertMachines, insertRecords, storeWithPeople } from './helpers.ts'

const clock = testClock('2026-03-15T03:00:00.000Z')
let people: Awaited<ReturnType<typeof storeWithPeople>>
const current = sharedTestApp({
  clock,
  setup: async (app) => {
    people = await storeWithPeople(app)
  },
})

const documentPath = (url: string) =>
  url
    .split('?')[0]
    ?.replace(/\/store\/[^/]+\/machines\/[^/]+$/, '/store/{id}/machines/{machine}')
    .replace(/\/store\/[^/]+\//, '/store/{id}/') ?? url
const { seen, undeclared } = checkEveryAnswer(current, documentPath)

const machinesUrl = (storeId = people.storeId, query = 'year=2026&month=3') =>
  `/api/v0/store/${storeId}/machines?${query}`
const taxUrl = (query: string, storeId = people.storeId) => `/api/v0/store/${storeId}/export/tax.csv?${query}`
const get = (url: string, token?: string) =>
  current.app.inject({ method: 'GET', url, headers: token ? bearer(token) : {} })
const patch = (machine: string, payload: unknown, token = people.owner, storeId = people.storeId) =>
  current.app.inject({
    method: 'PATCH',
    url: `/api/v0/store/${storeId}/machines/${encodeURIComponent(machine)}`,
    headers: bearer(token),
    payload: payload as object,
  })

describe('GET …/machines', () => {
  it('answers members, staff included, with every machine in order and all six methods', async () => {
    await insertMachines(current.app, people.storeId, [
      { machine: 'W10', reportedKind: 'washer', state: 'running' },
      { machine: 'D1', reportedKind: 'dryer', state: 'error', code: 'E21' },
      { machine: 'X', lastSaleAt: '2026-03-15T02:59:00.123Z' },
      { machine: 'W2', reportedKind: 'washer' },
      { machine: '세탁기10', kind: 'washer' },
      { machine: '세탁기2', kind: 'washer', reportedKind: 'dryer' },
      { machine: 'B', name: 'W3', kind: 'washer', reportedKind: 'other' },
    ])
    await insertRecords(current.app, people.storeId, people.deviceId, [
      { at: '2026-03-15T01:00:00Z', amount: 4000, machine: 'W2', method: 'card', fromDevice: true },
      { at: '2026-03-14T01:00:00Z', amount: 3000, machine: 'W2', method: null, fromDevice: false },
      {
        at: '2026-03-15T02:00:00Z',
        amount: -1000,
        machine: 'W2',
        method: 'card',
        fromDevice: true,
        refundOf: 's0',
      },
      { at: '2026-03-15T02:00:00Z', amount: 500, machine: null, method: 'coin', fromDevice: false },
    ])
    for (const token of [people.owner, people.staff]) {
      const response = await get(machinesUrl(), token)
      expect(response.statusCode).toBe(200)
      const answer = response.json() as MachinesAnswer
      expect(answer.machines.map((m) => `${m.kind} ${m.name}`)).toEqual([
        'washer 세탁기2',
        'washer 세탁기10',
        'washer W2',
        'washer W3',
        'washer W10',
        'dryer D1',
        'other X',
      ])
      expect(answer.machines[2]).toEqual({
        machine: 'W2',
        name: 'W2',
        kind: 'washer',
        state: null,
        stateSince: null,
        code: null,
        lastSaleAt: null,
        month: { sum: 6000, count: 2 },
        today: { sum: 3000, count: 1 },
        refunds: { sum: -1000, count: 1 },
        // What the machine-silent rule reads: its sales of the 28 days before today (the 14th's; the
        // refund is none), no sale of its own to count the others' from (its row has no last sale), and
        // its runs (one sale: none).
        silence: { historySales: 1, othersSince: 0, runs: [0, 0, 0, 0, 0, 0, 0, 0] },
      })
      // The days those counts cover: from the store's first machine sale in them (the 14th) to today.
      expect(answer.historyDays).toBe(1)
      expect(answer.machines.find((m) => m.machine === 'D1')).toMatchObject({
        state: 'error',
        stateSince: '2026-02-01T00:00:00.000Z',
        code: 'E21',
      })
      expect(answer.machines.find((m) => m.machine === 'X')?.lastSaleAt).toBe('2026-03-15T02:59:00.123Z')
      expect(answer.methods).toEqual([
        { method: 'card', sum: 4000, count: 1 },
        { method: 'cash', sum: 0, count: 0 },
        { method: 'coin', sum: 500, count: 1 },
        { method: 'mobile', sum: 0, count: 0 },
        { method: 'point', sum: 0, count: 0 },
        { method: 'other', sum: 3000, count: 1 },
      ])
      expect(answer.refunds).toEqual({ sum: -1000, count: 1 })
      expect(answer.at).toBe('2026-03-15T03:00:00.000Z')
    }
    // Another month: the machines, with nothing counted; today is not in it.
    const february = (await get(machinesUrl(people.storeId, 'year=2026&month=2'), people.staff)).json()
    expect(february.machines).toHaveLength(7)
    expect(february.machines[0].today).toEqual({ sum: 0, count: 0 })
    expect(february.refunds).toEqual({ sum: 0, count: 0 })
  })

  it('refuses strangers and a store that does not exist alike, and a request without a token', async () => {
    for (const url of [machinesUrl(people.otherStoreId), machinesUrl(999_999)]) {
      const response = await get(url, people.owner)
      expect(response.statusCode).toBe(403)
      expect(response.json()).toEqual({ message: messages.forbidden })
    }
    expect((await get(machinesUrl(people.storeId), people.stranger)).statusCode).toBe(403)
    expect((await get(machinesUrl())).statusCode).toBe(401)
  })

  it('refuses a bad month, year or store id in Korean', async () => {
    const cases: [string, string][] = [
      ['year=2026&month=0', messages.month],
      ['year=2026&month=13', messages.month],
      ['year=2026&month=x', messages.month],
      ['year=2026', messages.month],
      ['month=3', messages.year],
      ['year=1999&month=3', messages.year],
    ]
    for (const [query, message] of cases) {
      const response = await get(machinesUrl(people.storeId, query), people.staff)
      expect(response.statusCode, query).toBe(400)
      expect(response.json(), query).toEqual({ message })
    }
    const badId = await get('/api/v0/store/0/machines?year=2026&month=3', people.owner)
    expect(badId.statusCode).toBe(400)
    expect(badId.json()).toEqual({ message: messages.storeId })
  })
})

describe('PATCH …/machines/{machine}', () => {
  it("sets an owner's name and kind, and null gives back the devices'", async () => {
    await insertMachines(current.app, people.storeId, [{ machine: '건조기 2', reportedKind: 'dryer' }])
    await insertRecords(current.app, people.storeId, people.deviceId, [
      { at: '2026-03-15T01:00:00Z', amount: 4000, machine: '건조기 2', method: 'card', fromDevice: true },
    ])
    const renamed = await patch('건조기 2', { name: '  건조기 2 (대형)  ', kind: 'washer' })
    expect(renamed.statusCode).toBe(200)
    expect(renamed.json()).toMatchObject({
      machine: '건조기 2',
      name: '건조기 2 (대형)',
      kind: 'washer',
      month: { sum: 4000, count: 1 },
      today: { sum: 4000, count: 1 },
    })
    // An absent field stays as it is.
    expect((await patch('건조기 2', { kind: 'other' })).json()).toMatchObject({
      name: '건조기 2 (대형)',
      kind: 'other',
    })
    expect((await patch('건조기 2', {})).json()).toMatchObject({ name: '건조기 2 (대형)', kind: 'other' })
    const listed = (await get(machinesUrl(), people.staff)).json() as MachinesAnswer
    expect(listed.machines[0]).toMatchObject({ name: '건조기 2 (대형)', kind: 'other' })
    expect((await patch('건조기 2', { name: null, kind: null })).json()).toMatchObject({
      name: '건조기 2',
      kind: 'dryer',
    })
  })

  it('lets only owners, and answers 404 for a machine the store does not have', async () => {
    await insertMachines(current.app, people.storeId, [{ machine: 'W1' }])
    await insertMachines(current.app, people.otherStoreId, [{ machine: 'W9' }])
    const staff = await patch('W1', { name: '세탁기' }, people.staff)
    expect(staff.statusCode).toBe(403)
    expect(staff.json()).toEqual({ message: messages.machinesOwnerOnly })
    // A stranger learns nothing of the store's machines: 403 whether the machine exists or not.
    expect((await patch('W1', { name: '세탁기' }, people.stranger)).statusCode).toBe(403)
    expect((await patch('W404', { name: '세탁기' }, people.stranger)).statusCode).toBe(403)
    expect((await patch('W9', { name: '세탁기' }, people.owner, people.otherStoreId)).statusCode).toBe(403)
    expect((await patch('W1', { name: '세탁기' }, people.owner, 999_999)).statusCode).toBe(403)
    for (const machine of ['W9', 'W404', 'x'.repeat(65)]) {
      const missing = await patch(machine, { name: '세탁기' })
      expect(missing.statusCode, machine).toBe(404)
      expect(missing.json()).toEqual({ message: messages.machineNotFound })
    }
    const row = (await get(machinesUrl(), people.owner)).json() as MachinesAnswer
    expect(row.machines[0]?.name).toBe('W1')
  })

  it('refuses a bad name or kind in Korean, and changes nothing', async () => {
    await insertMachines(current.app, people.storeId, [{ machine: 'W1', reportedKind: 'washer' }])
    const cases: [unknown, string][] = [
      [{ name: '' }, messages.machineName],
      [{ name: '   ' }, messages.machineName],
      [{ name: 'ㄱ'.repeat(41) }, messages.machineName],
      [{ name: 'a\u0007b' }, messages.machineName],
      [{ name: 'a\nb' }, messages.machineName],
      [{ name: 42 }, messages.machineName],
      [{ name: false }, messages.machineName],
      [{ name: ['W'] }, messages.machineName],
      [{ kind: '' }, messages.machineKind],
      [{ kind: 'big' }, messages.machineKind],
      [{ kind: 1 }, messages.machineKind],
      [{ name: '좋은 이름', kind: 'big' }, messages.machineKind],
    ]
    for (const [payload, message] of cases) {
      const response = await patch('W1', payload)
      expect(response.statusCode, JSON.stringify(payload)).toBe(400)
      expect(response.json(), JSON.stringify(payload)).toEqual({ message })
    }
    const notJson = await current.app.inject({
      method: 'PATCH',
      url: `/api/v0/store/${people.storeId}/machines/W1`,
      headers: { ...bearer(people.owner), 'content-type': 'application/json' },
      payload: '{"name":',
    })
    expect(notJson.statusCode).toBe(400)
    const row = (await get(machinesUrl(), people.owner)).json() as MachinesAnswer
    expect(row.machines[0]).toMatchObject({ name: 'W1', kind: 'washer' })
    // What is not a field of the call is refused, not dropped.
    const extra = await patch('W1', { name: 'W1', state: 'idle' })
    expect(extra.statusCode).toBe(400)
    expect(extra.json()).toEqual({ message: messages.machineChange })
  })
})

describe('GET …/export/tax.csv', () => {
  it('answers an Excel-ready CSV of Korean days with its Korean file name', async () => {
    await insertRecords(current.app, people.storeId, people.deviceId, [
      // 23:30 UTC on the 31st is the 1st in Korea.
      { at: '2026-01-31T23:30:00Z', amount: 4000, machine: 'W1', method: 'card', fromDevice: true },
      { at: '2026-01-31T14:59:59.999Z', amount: 3000, machine: null, method: null, fromDevice: false },
      {
        at: '2026-02-01T01:00:00Z',
        amount: -1000,
        machine: 'W1',
        method: 'card',
        fromDevice: true,
        refundOf: 's0',
      },
      { at: '2026-02-01T02:00:00Z', amount: 0, machine: 'W1', method: 'point', fromDevice: false },
    ])
    const response = await get(taxUrl('from=2026-01-31&to=2026-02-02'), people.owner)
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8')
    const disposition = String(response.headers['content-disposition'])
    expect(disposition).toBe(
      `attachment; filename="sales-2026-01-31-2026-02-02-KST.csv"; filename*=UTF-8''${encodeURIComponent('역삼점_매출_2026-01-31_2026-02-02_KST.csv')}`,
    )
    expect(response.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]))
    expect(csvRows(response.rawPayload)).toEqual([
      ['날짜', '카드', '현금', '동전', '간편결제', '포인트', '기타', '환불', '순매출', '건수'],
      ['2026-01-31', '0', '0', '0', '0', '0', '3000', '0', '3000', '1'],
      ['2026-02-01', '4000', '0', '0', '0', '0', '0', '-1000', '3000', '2'],
      ['2026-02-02', '0', '0', '0', '0', '0', '0', '0', '0', '0'],
      ['합계', '4000', '0', '0', '0', '0', '3000', '-1000', '6000', '3'],
    ])
  })

  it('takes up to 366 days, a leap year whole', async () => {
    const response = await get(taxUrl('from=2024-01-01&to=2024-12-31'), people.owner)
    expect(response.statusCode).toBe(200)
    const rows = csvRows(response.rawPayload)
    expect(rows).toHaveLength(368)
    expect(rows[60]?.[0]).toBe('2024-02-29')
  })

  it('lets only owners', async () => {
    const staff = await get(taxUrl('from=2026-01-01&to=2026-01-31'), people.staff)
    expect(staff.statusCode).toBe(403)
    expect(staff.json()).toEqual({ message: messages.taxOwnerOnly })
    expect((await get(taxUrl('from=2026-01-01&to=2026-01-31'), people.stranger)).statusCode).toBe(403)
    expect((await get(taxUrl('from=2026-01-01&to=2026-01-31', 999_999), people.owner)).statusCode).toBe(403)
    expect((await get(taxUrl('from=2026-01-01&to=2026-01-31'))).statusCode).toBe(401)
  })

  it('refuses bad dates and ranges in Korean', async () => {
    const cases: [string, string][] = [
      ['from=2026-02-30&to=2026-03-01', messages.taxDate],
      ['from=2026-13-01&to=2026-12-01', messages.taxDate],
      ['from=2026-1-1&to=2026-01-02', messages.taxDate],
      ['from=abc&to=2026-01-02', messages.taxDate],
      ['from=2026-01-01', messages.taxDate],
      ['to=2026-01-01', messages.taxDate],
      ['from=0000-01-01&to=0000-01-02', messages.taxDate],
      ['from=2026-01-02&to=2026-01-01', messages.taxRange],
      ['from=2025-01-01&to=2026-01-02', messages.taxRange],
      ['from=2024-01-01&to=2025-01-01', messages.taxRange],
    ]
    for (const [query, message] of cases) {
      const response = await get(taxUrl(query), people.owner)
      expect(response.statusCode, query).toBe(400)
      expect(response.json(), query).toEqual({ message })
    }
  })
})

it('answered as the OpenAPI document declares, every status of the calls met', () => {
  expect(undeclared).toEqual([])
  const statuses = (prefix: string) =>
    [...seen]
      .filter((s) => s.startsWith(prefix))
      .map((s) => Number(s.slice(-3)))
      .sort()
  expect(new Set(statuses('GET /api/v0/store/{id}/machines '))).toEqual(new Set([200, 400, 401, 403]))
  expect(new Set(statuses('PATCH /api/v0/store/{id}/machines/{machine} '))).toEqual(
    new Set([200, 400, 403, 404]),
  )
  expect(new Set(statuses('GET /api/v0/store/{id}/export/tax.csv '))).toEqual(new Set([200, 400, 401, 403]))
})
