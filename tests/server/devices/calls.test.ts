// The devices' calls, status by status (docs/product.md §11): the owner's (add, list, rename,
// revoke), the device's (pair, sales, heartbeat), their keys, limits and messages; and a device's
// sales in the usage answer, both forms, with a new ETag.
import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { decodeUsage, readLeadingSums } from '../../../contract/usage-compact.ts'
import { usageAccept } from '../../../contract/usage-compact-type.ts'
import { saleMessages } from '../../../domain/sales.ts'
import { queryRows } from '../../../server/db/client.ts'
import { currentGeneration, newGenerationSql } from '../../../server/db/generation.ts'
import { importUsageCsv } from '../../../server/db/import.ts'
import { messages } from '../../../server/errors.ts'
import { checkEveryAnswer } from '../openapi-check.ts'
import { bearer, sharedTestApp, testClock } from '../test-app.ts'
import { addDevice, pairedDevice, postSales, storedSales, storeWithPeople } from './helpers.ts'

const clock = testClock('2026-03-15T03:00:00.000Z')
let people: Awaited<ReturnType<typeof storeWithPeople>>
const current = sharedTestApp({
  clock,
  env: {
    DEVICE_REQUESTS_PER_MINUTE: '40',
    PAIR_ATTEMPTS_PER_IP_PER_HOUR: '6',
    DEVICES_ADDED_PER_STORE_PER_HOUR: '6',
  },
  setup: async (app) => {
    people = await storeWithPeople(app)
  },
})

// Every answer in this file is checked against the OpenAPI document (status declared, body as
// declared, Korean messages), and the last test checks that every status of the devices' calls was met.
const documentPath = (url: string) =>
  url
    .split('?')[0]
    ?.replace(/\/store\/[^/]+\/devices\/[^/]+$/, '/store/{id}/devices/{deviceId}')
    .replace(/\/store\/[^/]+\//, '/store/{id}/') ?? url
const { seen, undeclared } = checkEveryAnswer(current, documentPath)

const devicesUrl = () => `/api/v0/store/${people.storeId}/devices`
const sale = (id: string | number, createdAt = '2026-03-15T11:59:00+09:00', amount = 4000) => ({
  id,
  createdAt,
  amount,
})
const korean = (body: string) => expect(JSON.parse(body).message).toMatch(/[가-힣]/)

describe("the owner's calls", () => {
  it('adds a device with a pairing code of 10 minutes, lists, renames and revokes it', async () => {
    const { app } = current
    const added = await addDevice(app, people.storeId, people.owner, '  세탁기 옆  ')
    expect(added).toMatchObject({ name: '세탁기 옆', expiresAt: '2026-03-15T03:10:00.000Z' })
    expect(added.id).toBeGreaterThanOrEqual(1)
    expect(added.pairingCode).toMatch(/^[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}$/)
    const list = () => app.inject({ method: 'GET', url: devicesUrl(), headers: bearer(people.owner) })
    expect((await list()).json()).toEqual({
      devices: [
        {
          id: added.id,
          name: '세탁기 옆',
          createdAt: '2026-03-15T03:00:00.000Z',
          pairedAt: null,
          lastSeenAt: null,
          lastSaleAt: null,
          pending: null,
          skewMs: null,
          revokedAt: null,
          terminal: null,
          terminalSince: null,
          machines: [],
        },
      ],
    })
    const renamed = await app.inject({
      method: 'PATCH',
      url: `${devicesUrl()}/${added.id}`,
      headers: bearer(people.owner),
      payload: { name: '키오스크' },
    })
    expect(renamed.statusCode).toBe(204)
    const badName = await app.inject({
      method: 'PATCH',
      url: `${devicesUrl()}/${added.id}`,
      headers: bearer(people.owner),
      payload: { name: ' ' },
    })
    expect(badName.statusCode).toBe(400)
    expect(badName.json().message).toBe(messages.deviceName)
    clock.advance(1000)
    const revoke = () =>
      app.inject({ method: 'DELETE', url: `${devicesUrl()}/${added.id}`, headers: bearer(people.owner) })
    expect((await revoke()).statusCode).toBe(204)
    clock.advance(1000)
    expect((await revoke()).statusCode).toBe(204)
    expect((await list()).json().devices[0]).toMatchObject({
      name: '키오스크',
      revokedAt: '2026-03-15T03:00:01.000Z',
    })
    // Its waiting code went with it.
    const paired = await app.inject({
      method: 'POST',
      url: '/api/v0/device/pair',
      payload: { code: added.pairingCode },
    })
    expect(paired.statusCode).toBe(401)
  })

  it('refuses staff, strangers and other stores with 403, however the store id is written', async () => {
    const { app } = current
    for (const [url, token] of [
      [devicesUrl(), people.staff],
      [`/api/v0/store/${people.otherStoreId}/devices`, people.owner],
      ['/api/v0/store/999/devices', people.owner],
      // Numbers the schema reads: 1e3 is store 1000, 2e0 the other store.
      ['/api/v0/store/1e3/devices', people.owner],
      [`/api/v0/store/${people.otherStoreId}e0/devices`, people.owner],
    ] as const) {
      for (const method of ['GET', 'POST'] as const) {
        const response = await app.inject({
          method,
          url,
          headers: bearer(token),
          payload: method === 'POST' ? { name: 'x' } : undefined,
        })
        expect(response.statusCode, `${method} ${url}`).toBe(403)
        expect(response.json().message).toBe(messages.ownerOnly)
      }
      for (const method of ['PATCH', 'DELETE'] as const) {
        const response = await app.inject({
          method,
          url: `${url}/1`,
          headers: bearer(token),
          payload: method === 'PATCH' ? { name: 'x' } : undefined,
        })
        expect(response.statusCode, `${method} ${url}/1`).toBe(403)
      }
    }
    expect((await app.inject({ method: 'GET', url: devicesUrl() })).statusCode).toBe(401)
    expect((await app.inject({ method: 'POST', url: devicesUrl(), payload: { name: 'x' } })).statusCode).toBe(
      401,
    )
  })

  it('answers 400 for a bad name, 404 for a device not of the store, 429 past the hourly adds', async () => {
    const { app } = current
    for (const name of ['', '   ', 'x'.repeat(41), null, 'a\u0000b', 'a\ud800b']) {
      const response = await app.inject({
        method: 'POST',
        url: devicesUrl(),
        headers: bearer(people.owner),
        payload: { name },
      })
      expect(response.statusCode, JSON.stringify(name)).toBe(400)
      expect(response.json().message).toBe(messages.deviceName)
    }
    const other = await app.inject({
      method: 'POST',
      url: `/api/v0/store/${people.otherStoreId}/devices`,
      headers: bearer(people.owner),
      payload: { name: 'x' },
    })
    expect(other.statusCode).toBe(403)
    await app.db.execute(
      sql`insert into memberships (user_id, store_id, role) values (1, ${people.otherStoreId}, 'owner')`,
    )
    const foreign = await addDevice(app, people.otherStoreId, people.owner)
    for (const method of ['PATCH', 'DELETE'] as const) {
      for (const id of [foreign.id, 999]) {
        const response = await app.inject({
          method,
          url: `${devicesUrl()}/${id}`,
          headers: bearer(people.owner),
          payload: method === 'PATCH' ? { name: '남의 것' } : undefined,
        })
        expect(response.statusCode, `${method} ${id}`).toBe(404)
        korean(response.body)
      }
    }
    for (let i = 0; i < 6; i++) await addDevice(app, people.storeId, people.owner)
    const limited = await app.inject({
      method: 'POST',
      url: devicesUrl(),
      headers: bearer(people.owner),
      payload: { name: 'x' },
    })
    expect(limited.statusCode).toBe(429)
    expect(limited.json().message).toBe(messages.tooManyDevices)
    expect(Number(limited.headers['retry-after'])).toBe(3600)
  })
})

describe('pairing', () => {
  it('trades a code once for a key kept only as its hash; a user token is not a key, nor a key a token', async () => {
    const { app } = current
    const { pairingCode, id } = await addDevice(app, people.storeId, people.owner)
    // Typed loosely: lower case, no hyphen, O for 0 and I/L for 1 read alike.
    const typed = pairingCode.toLowerCase().replace('-', ' ').replaceAll('0', 'o').replaceAll('1', 'l')
    const pair = (code: string) =>
      app.inject({ method: 'POST', url: '/api/v0/device/pair', payload: { code } })
    const paired = await pair(typed)
    expect(paired.statusCode).toBe(200)
    const { deviceId, storeId, key } = paired.json()
    expect({ deviceId, storeId }).toEqual({ deviceId: id, storeId: people.storeId })
    expect(key).toMatch(/^dk_[A-Za-z0-9_-]{43}$/)
    const again = await pair(pairingCode)
    expect(again.statusCode).toBe(401)
    expect(again.json().message).toBe(messages.pairingCode)
    const [row] = await queryRows<{ key_hash: string }>(app.db, sql`select key_hash from devices`)
    expect(row?.key_hash).not.toContain(key.slice(3, 20))
    expect(JSON.stringify(await queryRows(app.db, sql`select * from devices`))).not.toContain(key.slice(3))

    // The key on a user's calls, a user's token on a device's calls: 401.
    for (const url of ['/api/v0/user', `/api/v0/store/${people.storeId}/usage?year=2026`, devicesUrl()]) {
      const response = await app.inject({ method: 'GET', url, headers: bearer(key) })
      expect(response.statusCode, url).toBe(401)
      expect(response.json().message).toBe(messages.deviceKeyElsewhere)
    }
    for (const token of [people.owner, undefined, `dk_${'A'.repeat(43)}`, `${key}x`]) {
      const response = await app.inject({
        method: 'POST',
        url: '/api/v0/device/heartbeat',
        headers: token ? bearer(token) : {},
        payload: { pending: 0 },
      })
      expect(response.statusCode).toBe(401)
      korean(response.body)
    }
  })

  it('refuses an expired, wrong or malformed code, a revoked device, and too many attempts', async () => {
    const { app } = current
    const pair = (code: unknown) =>
      app.inject({ method: 'POST', url: '/api/v0/device/pair', payload: { code } })
    const expired = await addDevice(app, people.storeId, people.owner)
    clock.advance(10 * 60 * 1000)
    expect((await pair(expired.pairingCode)).statusCode).toBe(401)
    expect((await pair('ZZZZZ-ZZZZZ')).statusCode).toBe(401)
    expect((await pair('!!')).statusCode).toBe(401)
    expect((await pair('')).statusCode).toBe(400)
    const revoked = await addDevice(app, people.storeId, people.owner)
    await app.inject({
      method: 'DELETE',
      url: `${devicesUrl()}/${revoked.id}`,
      headers: bearer(people.owner),
    })
    expect((await pair(revoked.pairingCode)).statusCode).toBe(401)
    const good = await addDevice(app, people.storeId, people.owner)
    expect((await pair('UUUUU-UUUUU')).statusCode).toBe(401)
    expect((await pair('UUUUU-UUUU0')).statusCode).toBe(401) // the 6th attempt of the hour
    const limited = await pair(good.pairingCode)
    expect(limited.statusCode).toBe(429)
    expect(limited.json().message).toBe(messages.tooManyPairings)
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
    clock.advance(60 * 60 * 1000 + 1000)
    // Its code expired meanwhile: a fresh one pairs.
    expect((await pair(good.pairingCode)).statusCode).toBe(401)
    const owner = (await app.tokens.start(1)).access
    expect((await pair((await addDevice(app, people.storeId, owner)).pairingCode)).statusCode).toBe(200)
  })
})

describe('a batch of sales', () => {
  it('stores the good sales, rejects each bad one with its message, and says so', async () => {
    const { app } = current
    const { key, deviceId } = await pairedDevice(app, people.storeId, people.owner)
    const response = await postSales(app, key, 'batch-1', [
      sale('a'),
      sale(7, '2026-03-15T02:00:00.250Z', -1500),
      sale('zero', '2026-03-15T02:00:00Z', 0),
      sale('a'), // repeated in the batch: one record
      sale('b', '2026-03-15T02:00:00'),
      sale('c', 'yesterday'),
      sale('d', '2026-02-30T10:00:00Z'),
      sale('e', '2026-03-15T03:05:01Z'),
      sale('f', '1999-12-31T23:59:59Z'),
      { id: 'g', createdAt: '2026-03-15T02:00:00Z', amount: 12.5 },
      { id: 'h', createdAt: '2026-03-15T02:00:00Z', amount: '4000' },
      sale('i', '2026-03-15T02:00:00Z', 10_000_001),
      sale('j', '2026-03-15T02:00:00Z', -10_000_001),
      { createdAt: '2026-03-15T02:00:00Z', amount: 1 },
      sale(''),
      sale(-1),
      sale(' x'),
      'not a sale',
      sale('a', '2026-03-15T02:00:00Z', 1), // another sale under an id taken earlier in the batch
    ])
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      accepted: 3,
      duplicates: 1,
      rejected: [
        { id: 'b', message: saleMessages.createdAtNoOffset },
        { id: 'c', message: saleMessages.createdAtUnparseable },
        { id: 'd', message: saleMessages.createdAtUnparseable },
        { id: 'e', message: saleMessages.createdAtFuture },
        { id: 'f', message: saleMessages.createdAtRange },
        { id: 'g', message: saleMessages.amountNotInteger },
        { id: 'h', message: saleMessages.amountNotInteger },
        { id: 'i', message: saleMessages.amountRange },
        { id: 'j', message: saleMessages.amountRange },
        { id: null, message: saleMessages.id },
        { id: '', message: saleMessages.id },
        { id: -1, message: saleMessages.id },
        { id: ' x', message: saleMessages.id },
        { id: null, message: saleMessages.notObject },
        { id: 'a', message: saleMessages.otherSale },
      ],
      serverTime: '2026-03-15T03:00:00.000Z',
      generation: await currentGeneration(app.db),
    })
    expect(await storedSales(app, people.storeId)).toEqual([
      `${deviceId} 7 2026-03-15T02:00:00.250Z -1500`,
      `${deviceId} a 2026-03-15T02:59:00.000Z 4000`,
      `${deviceId} zero 2026-03-15T02:00:00.000Z 0`,
    ])
    // Text the database could not keep is a bad id too, never a 500.
    const odd = await postSales(app, key, 'batch-odd', [sale('a\ud800b'), sale('a\u0000')])
    expect(odd.json().rejected).toEqual([
      { id: 'a\ud800b', message: saleMessages.id },
      { id: 'a\u0000', message: saleMessages.id },
    ])
    // A number JSON can write but not hold (1e400 is Infinity once parsed) is that sale's own mistake.
    const huge = await app.inject({
      method: 'POST',
      url: '/api/v0/device/sales',
      headers: { ...bearer(key), 'idempotency-key': 'batch-huge', 'content-type': 'application/json' },
      payload: `{"sales":[{"id":"l","createdAt":"2026-03-15T02:00:00Z","amount":1e400},${JSON.stringify(sale('m'))}]}`,
    })
    expect(huge.statusCode).toBe(200)
    expect(huge.json()).toMatchObject({
      accepted: 1,
      rejected: [{ id: 'l', message: saleMessages.amountNotInteger }],
    })
    // Within 5 minutes ahead is a clock running fast, not a mistake.
    const ahead = await postSales(app, key, 'batch-2', [sale('k', '2026-03-15T03:05:00Z')])
    expect(ahead.json()).toMatchObject({ accepted: 1, rejected: [] })
  })

  it('replays an answered key, refuses it for other sales (422), and counts sales already stored as duplicates', async () => {
    const { app } = current
    const { key } = await pairedDevice(app, people.storeId, people.owner)
    const first = await postSales(app, key, 'k1', [sale(1), sale(2)], { sentAt: '2026-03-15T03:00:02Z' })
    expect(first.json()).toMatchObject({ accepted: 2, duplicates: 0 })
    clock.advance(30_000)
    // A retry says a later sentAt: not part of the batch's identity.
    const replay = await postSales(app, key, 'k1', [sale(1), sale(2)], { sentAt: '2026-03-15T03:00:33Z' })
    expect(replay.statusCode).toBe(200)
    expect(replay.body).toBe(first.body)
    const other = await postSales(app, key, 'k1', [sale(1), sale(3)])
    expect(other.statusCode).toBe(422)
    expect(other.json().message).toBe(messages.idempotencyKeyReused)
    const overlap = await postSales(app, key, 'k2', [sale(2), sale(3), sale(1, '2026-03-15T01:00:00Z')])
    expect(overlap.json()).toEqual({
      accepted: 1,
      duplicates: 1,
      rejected: [{ id: 1, message: saleMessages.otherSale }],
      serverTime: '2026-03-15T03:00:30.000Z',
      generation: await currentGeneration(app.db),
    })
    expect(await storedSales(app, people.storeId)).toHaveLength(3)
    // Another device's sale 1 is its own.
    const second = await pairedDevice(app, people.storeId, people.owner)
    expect((await postSales(app, second.key, 'k1', [sale(1)])).json()).toMatchObject({ accepted: 1 })
    const list = (
      await app.inject({ method: 'GET', url: devicesUrl(), headers: bearer(people.owner) })
    ).json()
    expect(list.devices[0]).toMatchObject({
      skewMs: 2000,
      lastSaleAt: '2026-03-15T02:59:00.000Z',
      lastSeenAt: '2026-03-15T03:00:30.000Z',
    })
  })

  it('answers 400 for a missing or bad key, too many sales or a bad sentAt, 413 over 64 KiB', async () => {
    const { app } = current
    const { key, deviceId } = await pairedDevice(app, people.storeId, people.owner)
    const missing = await postSales(app, key, undefined, [sale(1)])
    expect(missing.statusCode).toBe(400)
    expect(missing.json().message).toBe(messages.idempotencyKeyMissing)
    for (const bad of ['', 'x'.repeat(256), 'a b', '키']) {
      const response = await app.inject({
        method: 'POST',
        url: '/api/v0/device/sales',
        headers: {
          ...bearer(key),
          'idempotency-key': encodeURIComponent(bad) === bad ? bad : Buffer.from(bad).toString('latin1'),
        },
        payload: { sales: [sale(1)] },
      })
      expect(response.statusCode, bad).toBe(400)
      expect(response.json().message).toBe(messages.idempotencyKeyBad)
    }
    expect((await postSales(app, key, 'x'.repeat(255), [sale(1)])).statusCode).toBe(200)
    const many = Array.from({ length: 501 }, (_, i) => ({
      id: i,
      createdAt: '2026-03-15T01:00:00Z',
      amount: 1,
    }))
    const tooMany = await postSales(app, key, 'many', many)
    expect(tooMany.statusCode).toBe(400)
    expect(tooMany.json().message).toBe(messages.tooManySales)
    const big = Array.from({ length: 500 }, (_, i) => ({
      id: `${'x'.repeat(100)}${i}`,
      createdAt: '2026-03-15T01:00:00Z',
      amount: 1,
    }))
    const tooBig = await postSales(app, key, 'big', big)
    expect(tooBig.statusCode).toBe(413)
    expect(tooBig.json().message).toBe(messages.salesTooLarge)
    for (const sentAt of ['now', '2026-03-15T03:00:00']) {
      const response = await postSales(app, key, 'sent', [sale(1)], { sentAt })
      expect(response.statusCode).toBe(400)
      expect(response.json().message).toBe(messages.sentAt)
    }
    for (const payload of [{}, { sales: 'x' }, { sales: [], extra: {} }]) {
      const response = await app.inject({
        method: 'POST',
        url: '/api/v0/device/sales',
        headers: { ...bearer(key), 'idempotency-key': 'p' },
        payload,
      })
      expect(response.statusCode, JSON.stringify(payload)).toBeLessThan(500)
      if (response.statusCode !== 200) korean(response.body)
    }
    expect(await storedSales(app, people.storeId)).toEqual([`${deviceId} 1 2026-03-15T02:59:00.000Z 4000`])
  })

  it("tells the database's generation in every answer, and a new one once it changes (a restore)", async () => {
    const { app } = current
    const { key } = await pairedDevice(app, people.storeId, people.owner)
    const heartbeat = () =>
      app.inject({
        method: 'POST',
        url: '/api/v0/device/heartbeat',
        headers: bearer(key),
        payload: { pending: 0 },
      })
    const before = await currentGeneration(app.db)
    expect(before).toMatch(/^[0-9a-f-]{36}$/)
    const first = await postSales(app, key, 'g1', [sale(1)])
    expect(first.json()).toMatchObject({ accepted: 1, generation: before })
    const beat = await heartbeat()
    expect(beat.statusCode).toBe(204)
    expect(beat.headers['database-generation']).toBe(before)

    // What an operator runs after putting PostgreSQL back from a backup (docs/operations.md), and what a
    // restore or an unclean start of the embedded database does.
    await app.db.execute(sql.raw(newGenerationSql('restored from a backup')))
    const after = await currentGeneration(app.db)
    expect(after).not.toBe(before)
    // A replayed answer tells the generation as it is now, not as it was stored.
    const replay = await postSales(app, key, 'g1', [sale(1)])
    expect(replay.json()).toMatchObject({ accepted: 1, generation: after })
    expect((await postSales(app, key, 'g2', [sale(1), sale(2)])).json()).toMatchObject({
      accepted: 1,
      duplicates: 1,
      generation: after,
    })
    expect((await heartbeat()).headers['database-generation']).toBe(after)
  })

  it('refuses a revoked key at once, and a key past its rate with Retry-After', async () => {
    const { app } = current
    const device = await pairedDevice(app, people.storeId, people.owner)
    const heartbeat = (pending: unknown = 3) =>
      app.inject({
        method: 'POST',
        url: '/api/v0/device/heartbeat',
        headers: bearer(device.key),
        payload: { pending },
      })
    expect((await heartbeat()).statusCode).toBe(204)
    expect((await heartbeat(-1)).statusCode).toBe(400)
    expect((await heartbeat('many')).statusCode).toBe(400)
    for (let i = 0; i < 37; i++) expect((await heartbeat()).statusCode).toBe(204)
    clock.advance(20_000)
    const limited = await postSales(app, device.key, 'r', [sale(1)])
    expect(limited.statusCode).toBe(429)
    expect(limited.json().message).toBe(messages.tooManyDeviceRequests)
    expect(limited.headers['retry-after']).toBe('40')
    clock.advance(40_000)
    expect((await postSales(app, device.key, 'r', [sale(1)])).statusCode).toBe(200)
    const list = (
      await app.inject({ method: 'GET', url: devicesUrl(), headers: bearer(people.owner) })
    ).json()
    expect(list.devices[0]).toMatchObject({ pending: 3, lastSeenAt: '2026-03-15T03:01:00.000Z' })

    await app.inject({
      method: 'DELETE',
      url: `${devicesUrl()}/${device.deviceId}`,
      headers: bearer(people.owner),
    })
    const refused = await postSales(app, device.key, 's', [sale(2)])
    expect(refused.statusCode).toBe(401)
    expect(refused.json().message).toBe(messages.deviceKey)
    expect((await heartbeat()).statusCode).toBe(401)
    expect(await storedSales(app, people.storeId)).toHaveLength(1)
  })
})

describe("a device's sales in the usage answer", () => {
  it('appear in both forms, and change each form’s ETag; a batch of duplicates changes nothing', async () => {
    const { app } = current
    const { key } = await pairedDevice(app, people.storeId, people.owner)
    const usage = (accept?: string) =>
      app.inject({
        method: 'GET',
        url: `/api/v0/store/${people.storeId}/usage?year=2026`,
        headers: { ...bearer(people.owner), ...(accept ? { accept } : {}) },
      })
    const before = [await usage(), await usage(usageAccept)]
    expect(before[0]?.json()).toEqual({ usages: [] })
    // One sale of last year in the batch too: its year's answer, not this one's.
    await postSales(app, key, 'one', [
      sale('s1', '2026-03-15T01:02:03.004Z', 5000),
      sale('s2', '2026-01-01T00:00:00Z', -500),
      sale('s0', '2026-01-01T08:59:59.999+09:00', 700),
    ])
    const after = [await usage(), await usage(usageAccept)]
    const expected = [
      { createdAt: '2026-01-01T00:00:00.000Z', amount: -500 },
      { createdAt: '2026-03-15T01:02:03.004Z', amount: 5000 },
    ]
    expect(after[0]?.json()).toEqual({ usages: expected })
    // The app's form, version 2: the year's day sums, then the records.
    const v2 = new Uint8Array(after[1]?.rawPayload ?? [])
    const lead = readLeadingSums(v2, 2026)
    expect(lead?.sums.daySums.reduce((sum, day) => sum + day, 0)).toBe(4500)
    const compact: { createdAt: string; amount: number }[] = []
    decodeUsage(v2.subarray(lead?.recordsAt), (createdAt, amount) =>
      compact.push({ createdAt: new Date(createdAt).toISOString(), amount }),
    )
    expect(compact).toEqual(expected)
    const lastYear = await app.inject({
      method: 'GET',
      url: `/api/v0/store/${people.storeId}/usage?year=2025`,
      headers: bearer(people.owner),
    })
    expect(lastYear.json()).toEqual({ usages: [{ createdAt: '2025-12-31T23:59:59.999Z', amount: 700 }] })
    for (const i of [0, 1]) expect(after[i]?.headers.etag).not.toBe(before[i]?.headers.etag)
    await postSales(app, key, 'two', [sale('s1', '2026-03-15T01:02:03.004Z', 5000)])
    const still = [await usage(), await usage(usageAccept)]
    for (const i of [0, 1]) expect(still[i]?.headers.etag).toBe(after[i]?.headers.etag)
  })
})

describe('devices beside the CSV import', () => {
  it('keep their own keys: each source stores its sales once, neither skips nor replaces the other', async () => {
    const { app } = current
    const { key, deviceId } = await pairedDevice(app, people.storeId, people.owner)
    const csv = 'createdAt,amount,id\n2026-03-15T10:00:00+09:00,3000,x1\n2026-03-15T10:05:00+09:00,3000,\n'
    expect(await importUsageCsv(app.db, people.storeId, csv)).toMatchObject({ imported: 2, skipped: 0 })
    const posted = await postSales(app, key, 'k', [sale('x1', '2026-03-15T10:00:00+09:00', 3000)])
    expect(posted.json()).toMatchObject({ accepted: 1, duplicates: 0 })
    expect(await importUsageCsv(app.db, people.storeId, csv)).toMatchObject({ imported: 0, skipped: 2 })
    expect(
      (await postSales(app, key, 'k2', [sale('x1', '2026-03-15T10:00:00+09:00', 3000)])).json(),
    ).toMatchObject({
      accepted: 0,
      duplicates: 1,
    })
    const rows = await queryRows<{
      source_id: string | null
      device_id: number | null
      device_sale_id: string | null
    }>(app.db, sql`select source_id, device_id, device_sale_id from usages order by id`)
    expect(rows).toEqual([
      { source_id: 'id:x1', device_id: null, device_sale_id: null },
      { source_id: expect.stringMatching(/^src:/), device_id: null, device_sale_id: null },
      { source_id: null, device_id: deviceId, device_sale_id: 'x1' },
    ])
  })
})

describe('the OpenAPI document', () => {
  it("declares every status the devices' calls answered above, with their bodies", () => {
    expect(undeclared).toEqual([])
    const statuses = (prefix: string) =>
      [...seen]
        .filter((s) => s.startsWith(`${prefix} `))
        .map((s) => Number(s.slice(-3)))
        .sort()
    expect(statuses('POST /api/v0/store/{id}/devices')).toEqual([201, 400, 401, 403, 429])
    expect(statuses('GET /api/v0/store/{id}/devices')).toEqual([200, 401, 403])
    expect(statuses('PATCH /api/v0/store/{id}/devices/{deviceId}')).toEqual([204, 400, 403, 404])
    expect(statuses('DELETE /api/v0/store/{id}/devices/{deviceId}')).toEqual([204, 403, 404])
    expect(statuses('POST /api/v0/device/pair')).toEqual([200, 400, 401, 429])
    // 409 needs two requests at once: tests/server/devices/concurrency.postgres.test.ts.
    expect(statuses('POST /api/v0/device/sales')).toEqual([200, 400, 401, 413, 422, 429])
    expect(statuses('POST /api/v0/device/heartbeat')).toEqual([204, 400, 401])
  })
})
