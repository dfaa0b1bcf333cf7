// Hidden money (docs/product.md §15): a staff member the owner hides won amounts from gets none through
// any call, stream or push. Every GET route of the OpenAPI document is called as that member, the
// overview's and the changes' streams are read, the morning summary is recorded and pushed, and the
// alerts list is read: no seeded amount (nor any sum of them) appears, as a number or in 원. A push
// recorded before the money was hidden, or before a removal, is checked again when it is sent.
import { sql } from 'drizzle-orm'
import { beforeEach, describe, expect, it } from 'vitest'
import { queryRows } from '../../../server/db/client.ts'
import { messages } from '../../../server/errors.ts'
import { pushEnv, subscribe } from '../alerts/helpers.ts'
import { pairedDevice, postSales, staffPhone, storeWithPeople } from '../devices/helpers.ts'
import { fakeTransport } from '../push/helpers.ts'
import { bearer, sharedTestApp, testClock, until } from '../test-app.ts'
import { openStream } from '../usage/stream-client.ts'

// Monday 16 March 2026, 09:05 KST: the morning summary of Sunday 15 March is due.
const clock = testClock('2026-03-16T00:05:00.000Z')
const fake = fakeTransport()
const current = sharedTestApp({ clock, env: pushEnv, pushTransport: () => fake.transport })

/** Distinctive amounts: no count, id, time or percent is any of them or any sum of them. */
const sales = [
  { id: 'a', createdAt: '2025-07-01T03:00:00Z', amount: 67_891, machine: '세탁기 1', method: 'card' },
  { id: 'b', createdAt: '2026-02-16T03:00:00Z', amount: 88_889, machine: '건조기 1', method: 'cash' },
  { id: 'c', createdAt: '2026-03-15T03:00:00Z', amount: 123_457, machine: '세탁기 1', method: 'card' },
  { id: 'd', createdAt: '2026-03-15T05:00:00Z', amount: 54_323, machine: '건조기 1', method: 'cash' },
  { id: 'e', createdAt: '2026-03-16T00:01:00Z', amount: 76_547, machine: '세탁기 1', method: 'coin' },
  { id: 'f', createdAt: '2026-03-16T00:02:00Z', amount: 31_417, machine: '세탁기 2', method: 'mobile' },
  { id: 'g', createdAt: '2026-03-16T00:03:00Z', amount: -12_347, machine: '세탁기 1', refundOf: 'c' },
]
/** A sale made while the streams are open. */
const later = {
  id: 'h',
  createdAt: '2026-03-16T00:04:00Z',
  amount: 24_683,
  machine: '세탁기 2',
  method: 'card',
}

/** Every sum of a non-empty set of the amounts, and each negated. */
const forbidden = (() => {
  const amounts = [...sales, later].map((sale) => sale.amount)
  const sums = new Set<number>()
  for (let mask = 1; mask < 1 << amounts.length; mask++) {
    const sum = amounts.reduce((total, amount, at) => (mask & (1 << at) ? total + amount : total), 0)
    sums.add(sum)
    sums.add(-sum)
  }
  sums.delete(0)
  return sums
})()

/** The won amounts in a text: a seeded sum as a number (with or without thousands' commas), and anything in 원. */
function amountsIn(text: string) {
  const found = [...text.matchAll(/-?\d[\d,]*(?:\.\d+)?/g)]
    .map(([token]) => Number(token.replaceAll(',', '')))
    .filter((value) => forbidden.has(value) || forbidden.has(Math.round(value)))
  const inWon = [...text.matchAll(/[\d,.]+\s*(?:만\s*)?원/g)].map(([token]) => token)
  return [...found, ...inWon]
}

let people: Awaited<ReturnType<typeof storeWithPeople>> & { staffId: number; deviceId: number }

beforeEach(async () => {
  fake.clear()
  const base = await storeWithPeople(current.app)
  const device = await pairedDevice(current.app, base.storeId, base.owner)
  const posted = await postSales(current.app, device.key, 'seed', sales)
  expect(posted.json()).toMatchObject({ accepted: sales.length, rejected: [] })
  const heartbeat = await current.app.inject({
    method: 'POST',
    url: '/api/v0/device/heartbeat',
    headers: bearer(device.key),
    payload: { pending: 0, machines: [{ machine: '세탁기 1', state: 'running' }], terminal: 'ok' },
  })
  expect(heartbeat.statusCode).toBeLessThan(300)
  const [staff] = await queryRows<{ id: number }>(
    current.app.db,
    sql`select id from users where phone = ${staffPhone}`,
  )
  people = { ...base, staffId: Number(staff?.id), deviceId: device.deviceId }
  await subscribe(current.app, people.staff, 'staff')
  await subscribe(current.app, people.owner, 'owner')
})

const as = (token: string, url: string, headers: Record<string, string> = {}) =>
  current.app.inject({ method: 'GET', url, headers: { ...bearer(token), ...headers } })

const hideMoney = async () => {
  const changed = await current.app.inject({
    method: 'PATCH',
    url: `/api/v0/store/${people.storeId}/members/${people.staffId}`,
    headers: bearer(people.owner),
    payload: { showsMoney: false },
  })
  expect(changed.statusCode).toBe(204)
}

/** The value of each path and query parameter the document names, for this store and member. */
function parameterValue(name: string): string {
  const values: Record<string, string | number> = {
    id: people.storeId,
    deviceId: people.deviceId,
    userId: people.staffId,
    inviteId: 1,
    machine: '세탁기 1',
    year: 2026,
    month: 3,
    after: 0,
    from: '2026-03-01',
    to: '2026-03-31',
    token: 'x',
  }
  const value = values[name]
  if (value === undefined) throw new Error(`no value for the parameter ${name}: name one here`)
  return encodeURIComponent(String(value))
}

interface Operation {
  parameters?: { name: string; in: string; required?: boolean }[]
}

/** Every GET call of the API as the OpenAPI document lists it, with its required parameters filled. */
async function everyGet() {
  const document = (await current.app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as {
    paths: Record<string, { get?: Operation }>
  }
  return Object.entries(document.paths).flatMap(([path, item]) => {
    if (!item.get || !path.startsWith('/api/v0/')) return []
    const parameters = item.get.parameters ?? []
    const url = path.replace(/\{(\w+)\}/g, (_, name: string) => parameterValue(name))
    const query = parameters
      .filter((parameter) => parameter.in === 'query' && parameter.required)
      .map((parameter) => `${parameter.name}=${parameterValue(parameter.name)}`)
    return [{ path, url: query.length > 0 ? `${url}?${query.join('&')}` : url }]
  })
}

describe('a staff member the owner hides won amounts from', () => {
  it('gets no amount from any GET call of the API (the seeded sums are seen by the owner)', async () => {
    const calls = await everyGet()
    expect(calls.map((c) => c.path)).toEqual(
      expect.arrayContaining([
        '/api/v0/stores/overview',
        '/api/v0/store/{id}/machines',
        '/api/v0/store/{id}/usage',
        '/api/v0/alerts',
      ]),
    )
    // The checker finds the amounts where they are shown: the owner's overview and machines.
    for (const path of [
      '/api/v0/stores/overview',
      `/api/v0/store/${people.storeId}/machines?year=2026&month=3`,
    ])
      expect(amountsIn((await as(people.owner, path)).body).length).toBeGreaterThan(0)
    await hideMoney()
    const leaks: string[] = []
    const answered: string[] = []
    for (const { path, url } of calls) {
      const response = await as(people.staff, url)
      answered.push(`${response.statusCode} ${path}`)
      const found = amountsIn(response.body)
      if (found.length > 0) leaks.push(`${path}: ${found.join(', ')}`)
    }
    expect(leaks).toEqual([])
    // What the member still sees: the overview's counts, the machines' turns and states.
    expect(answered).toContain('200 /api/v0/stores/overview')
    expect(answered).toContain('200 /api/v0/store/{id}/machines')
    const overview = (await as(people.staff, '/api/v0/stores/overview')).json()
    expect(Object.keys(overview.stores[0].today)).toEqual(['count'])
    expect(Object.keys(overview.stores[0].month)).toEqual(['count'])
    expect(overview.stores[0].today.count).toBeGreaterThan(0)
    const machines = (
      await as(people.staff, `/api/v0/store/${people.storeId}/machines?year=2026&month=3`)
    ).json()
    expect(machines.machines.find((m: { machine: string }) => m.machine === '세탁기 1')).toMatchObject({
      state: 'running',
      month: { count: 2 },
      today: { count: 1 },
      refunds: { count: 1 },
    })
    const usage = await as(people.staff, `/api/v0/store/${people.storeId}/usage?year=2026`)
    expect([usage.statusCode, usage.json().message]).toEqual([403, messages.moneyHidden])
    const changes = await as(people.staff, `/api/v0/store/${people.storeId}/usage/changes?year=2026&after=0`)
    expect([changes.statusCode, changes.json().message]).toEqual([403, messages.moneyHidden])
  })

  it('reads no amount from the streams, and an open overview stream loses its sums when the owner hides them', async () => {
    const address = await current.app.listen({ port: 0, host: '127.0.0.1' })
    const leave = new AbortController()
    const headers = bearer(people.staff)
    const first = (await as(people.staff, '/api/v0/stores/overview')).json()
    expect(amountsIn(JSON.stringify(first)).length).toBeGreaterThan(0) // still shown
    const open = await openStream(
      `${address}/api/v0/stores/overview?after=${first.rev}&wait=25`,
      headers,
      leave.signal,
    )
    await hideMoney()
    await until(() => open.events().length > 0)
    expect(amountsIn(JSON.stringify(open.events())).map(String)).toEqual([])
    const overview = await openStream(
      `${address}/api/v0/stores/overview?after=0&wait=25&stores=changed`,
      headers,
      leave.signal,
    )
    // With the clocks the app moves its rows by (decision 237): their hours' sums are 0, never an amount.
    const clocked = await openStream(
      `${address}/api/v0/stores/overview?after=0&wait=25&stores=changed&clock=1`,
      headers,
      leave.signal,
    )
    const changes = await openStream(
      `${address}/api/v0/store/${people.storeId}/usage/changes?year=2026&after=0&wait=25`,
      headers,
      leave.signal,
    )
    expect(changes.response.status).toBe(403)
    const device = await pairedDevice(current.app, people.storeId, people.owner, '두 번째')
    await postSales(current.app, device.key, 'later', [later])
    await until(() => overview.events().length >= 2 && clocked.events().length >= 2)
    const events = [...open.events(), ...overview.events(), ...clocked.events()]
    expect(amountsIn(JSON.stringify(events))).toEqual([])
    const clockText = JSON.stringify(clocked.events())
    expect(clockText).toContain('"clock"')
    const sums = [...clockText.matchAll(/"sums?":(\[[^\]]*\]|[-\d.e]+)/g)].flatMap(([, value]) =>
      [JSON.parse(value as string)].flat(),
    )
    expect(sums.length).toBeGreaterThan(0)
    expect(sums.filter((sum) => sum !== 0)).toEqual([])
    await changes.done
    leave.abort()
  })

  it('is pushed and listed the morning summary without amounts; one recorded before the money was hidden is dropped', async () => {
    // Recorded while the member saw the amounts, not yet pushed; then the owner hides them.
    const recorded = await current.app.alertRules.record(clock.now())
    expect(recorded.summaries).toBe(2)
    await hideMoney()
    await current.app.alertRules.deliver(clock.now())
    const payloads = fake.sent.map((request) => ({ endpoint: request.endpoint, text: request.payload }))
    expect(
      payloads.filter((p) => p.endpoint.endsWith('/owner')).map((p) => amountsIn(p.text).length > 0),
    ).toEqual([true])
    expect(payloads.filter((p) => p.endpoint.endsWith('/staff'))).toEqual([])
    const listed = (await as(people.staff, '/api/v0/alerts')).json().alerts
    expect(listed).toEqual([])
    // The next day's summary is recorded without amounts for the member, pushed and listed.
    fake.clear()
    clock.set('2026-03-17T00:05:00.000Z')
    await current.app.alertRules.evaluate(clock.now())
    const staffPushes = fake.sent.filter((request) => request.endpoint.endsWith('/staff'))
    // The summary, and the devices unheard since yesterday: none names an amount.
    expect(amountsIn(JSON.stringify(staffPushes.map((request) => request.payload)))).toEqual([])
    const summaries = staffPushes
      .map((request) => JSON.parse(request.payload) as { body: string; tag: string })
      .filter((payload) => payload.tag.startsWith('summary:'))
    expect(summaries).toHaveLength(1)
    const [staffSummary = { body: '' }] = summaries
    expect(staffSummary.body).toMatch(/^역삼점 \d+건 .*· 이번 달 \d+건/)
    expect(amountsIn(staffSummary.body)).toEqual([])
    const staff = (await current.app.tokens.start(people.staffId)).access
    const texts = JSON.stringify((await as(staff, '/api/v0/alerts')).json())
    expect(amountsIn(texts)).toEqual([])
    expect(texts).toContain(staffSummary.body.split(' · ')[0])
  })

  it('is pushed nothing recorded before a removal', async () => {
    await current.app.db.execute(sql`insert into alerts (user_id, store_id, kind, episode, title, body, tag, state, created_at, sent_at, push_pending)
      values (${people.staffId}, ${people.storeId}, 'deviceOffline', 'x', '역삼점 · 단말기 연결 끊김', 'b', 't', 'sent',
        ${clock.now().toISOString()}, ${clock.now().toISOString()}, true)`)
    await current.app.alertRules.record(clock.now())
    const removed = await current.app.inject({
      method: 'DELETE',
      url: `/api/v0/store/${people.storeId}/members/${people.staffId}`,
      headers: bearer(people.owner),
    })
    expect(removed.statusCode).toBe(204)
    await current.app.alertRules.deliver(clock.now())
    expect(fake.sent.map((request) => request.endpoint.split('/').at(-1))).toEqual(['owner'])
  })
})
