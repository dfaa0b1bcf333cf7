// The machine and payment terminal alerts (docs/product.md §12, decisions 185–188), heartbeats sent
// through the real device call, the minute's evaluation on a test clock: a machine's error pushed once a
// second heartbeat confirms it (at that heartbeat), one alert per episode, replaced under its tag when
// the machine works again; an error of one heartbeat, or flapping, never pushed; no alert from a stale
// state; the terminal down twice in a row; 3 failed payments with no card sale after them.
import { sql } from 'drizzle-orm'
import { beforeEach, describe, expect, it } from 'vitest'
import { queryRows } from '../../../server/db/client.ts'
import { recordHeartbeat } from '../../../server/devices/heartbeat.ts'
import { pairedDevice, postSales } from '../devices/helpers.ts'
import { fakeTransport } from '../push/helpers.ts'
import { bearer, sharedTestApp, testClock, until } from '../test-app.ts'
import { heartbeat, machine, storeWithDevice } from './equipment-helpers.ts'
import { alertRows, pushEnv } from './helpers.ts'

// Monday 16 March 2026, 14:00 KST.
const clock = testClock('2026-03-16T05:00:00.000Z')
const fake = fakeTransport()
const current = sharedTestApp({
  clock,
  env: { ...pushEnv, DEVICE_REQUESTS_PER_MINUTE: '100000' },
  pushTransport: () => fake.transport,
})
let store: Awaited<ReturnType<typeof storeWithDevice>>

beforeEach(async () => {
  fake.clear()
  store = await storeWithDevice(current.app)
})

const evaluate = () => current.app.alertRules.evaluate(clock.now())
const pushed = () =>
  fake.sent.map((request) => JSON.parse(request.payload) as { title: string; body: string; tag: string })
/** A heartbeat, a minute later. */
async function beat(body: Record<string, unknown> = {}, key = store.device.key) {
  clock.advance(60_000)
  await heartbeat(current.app, key, body)
}
/** The alerts recorded, with when (HH:MM:SS UTC). */
const recorded = () =>
  queryRows<{ kind: string; episode: string; at: string }>(
    current.app.db,
    sql`select kind, episode, to_char(created_at at time zone 'UTC', 'HH24:MI:SS') as at from alerts order by created_at, id`,
  )
/** Changes the owner's and the staff member's settings of the store alike. */
async function settings(payload: Record<string, unknown>) {
  for (const access of [store.owner, store.staff]) {
    const response = await current.app.inject({
      method: 'PUT',
      url: '/api/v0/alerts/settings',
      headers: bearer(access),
      payload: { storeId: store.storeId, ...payload },
    })
    expect(response.statusCode).toBe(200)
  }
}

describe("a machine's error", () => {
  it('is pushed at the heartbeat that confirms it, once, and replaced under its tag when the machine works again', async () => {
    await beat(machine('error', 'E21')) // 05:01, 14:01 KST
    expect((await evaluate()).sent).toBe(0)
    await beat(machine('error', 'E21')) // 05:02: confirmed
    expect(await recorded()).toEqual([
      // The owner and the staff member, each their own row, at the confirming heartbeat.
      { kind: 'machineError', episode: 'error:2026-03-16T05:01:00.000Z:W3', at: '05:02:00' },
      { kind: 'machineError', episode: 'error:2026-03-16T05:01:00.000Z:W3', at: '05:02:00' },
    ])
    await until(() => fake.sent.length === 1)
    const tag = `machine:${store.storeId}:error:2026-03-16T05:01:00.000Z:W3`
    expect(pushed()).toEqual([
      {
        title: '역삼점 · W3 고장',
        body: 'W3이(가) 14:01부터 고장 상태입니다 (E21).',
        tag,
        store: store.storeId,
      },
    ])
    for (let minute = 0; minute < 5; minute++) {
      await beat(machine('error', 'E21'))
      await evaluate()
    }
    expect(fake.sent).toHaveLength(1)
    await beat(machine('idle')) // 05:08
    expect((await evaluate()).resumed).toBe(2)
    expect(pushed()[1]).toEqual({
      title: '역삼점 · W3 정상',
      body: 'W3이(가) 14:08부터 다시 작동합니다 (7분 고장).',
      tag,
      store: store.storeId,
    })
    await beat(machine('running'))
    await evaluate()
    expect(fake.sent).toHaveLength(2)
  })

  it('that lasts one heartbeat, or comes and goes between heartbeats, is never pushed', async () => {
    for (let minute = 0; minute < 20; minute++) {
      await beat(machine(minute % 2 === 0 ? 'error' : 'running', 'E21'))
      await evaluate()
    }
    expect(await recorded()).toEqual([])
    expect(fake.sent).toHaveLength(0)
  })

  it('is not confirmed by a heartbeat repeated at once (under 30 s)', async () => {
    await beat(machine('error', 'E21'))
    clock.advance(5_000)
    await heartbeat(current.app, store.device.key, machine('error', 'E21'))
    await evaluate()
    expect(await recorded()).toEqual([])
    await beat(machine('error', 'E21'))
    expect((await recorded()).map((row) => row.at)).toEqual(['05:02:05', '05:02:05'])
  })

  it('a new error after the machine worked again is a new episode, pushed again', async () => {
    await beat(machine('error', 'E21'))
    await beat(machine('error', 'E21'))
    await until(() => fake.sent.length === 1)
    await beat(machine('idle'))
    await evaluate()
    await beat(machine('error', 'E30'))
    await beat(machine('error', 'E30'))
    await until(() => fake.sent.length === 3)
    expect(pushed().map((message) => message.body)).toEqual([
      'W3이(가) 14:01부터 고장 상태입니다 (E21).',
      'W3이(가) 14:03부터 다시 작동합니다 (2분 고장).',
      'W3이(가) 14:04부터 고장 상태입니다 (E30).',
    ])
  })

  it("says the owner's name for the machine", async () => {
    await beat(machine('error', 'E21'))
    await current.app.inject({
      method: 'PATCH',
      url: `/api/v0/store/${store.storeId}/machines/W3`,
      headers: bearer(store.owner),
      payload: { name: '세탁기 3 (대형)' },
    })
    await beat(machine('error', 'E21'))
    await until(() => fake.sent.length === 1)
    expect(pushed()[0]?.title).toBe('역삼점 · 세탁기 3 (대형) 고장')
  })

  it('of a device gone offline (or a machine its devices no longer name) is not pushed from its stale state', async () => {
    const other = await pairedDevice(current.app, store.storeId, store.owner, '건조기 쪽')
    await settings({ machineError: false })
    await beat(machine('error', 'E21'))
    await heartbeat(current.app, other.key, machine('error', 'E05', 'D1'))
    await beat(machine('error', 'E21'))
    await heartbeat(current.app, other.key, machine('error', 'E05', 'D1'))
    // The first device goes silent past the 10 minutes its outage takes to be told; the other keeps its
    // heartbeats but stops naming D1. The store's one outage is told (to each of its two members); neither
    // machine's stale error.
    for (let minute = 0; minute < 11; minute++) await beat({}, other.key)
    await settings({ machineError: true })
    await evaluate()
    expect((await recorded()).map((row) => row.kind)).toEqual(['deviceOffline', 'deviceOffline'])
  })
})

describe('the payment terminal', () => {
  it('down in two heartbeats in a row is pushed at the second, and replaced when it takes payments again', async () => {
    await beat({ terminal: 'down' })
    await evaluate()
    await beat({}) // a heartbeat that says nothing of it
    await beat({ terminal: 'down' })
    await until(() => fake.sent.length === 1)
    const tag = `terminal:${store.storeId}:down:${store.device.deviceId}:2026-03-16T05:01:00.000Z`
    expect(pushed()).toEqual([
      {
        title: '역삼점 · 카드 단말기 이상',
        body: '카드 단말기가 14:01부터 결제를 받지 못합니다.',
        tag,
        store: store.storeId,
      },
    ])
    await beat({ terminal: 'down', failedPayments: 5 }) // the failures say the same: no second alert
    await evaluate()
    await beat({ terminal: 'ok' })
    await evaluate()
    expect(pushed()).toHaveLength(2) // nor from the failures while it was down, once it is back
    expect(pushed()[1]).toMatchObject({
      title: '역삼점 · 카드 단말기 정상',
      body: '카드 단말기가 14:05부터 다시 결제를 받습니다 (4분 중단).',
      tag,
    })
  })

  it('down once then ok is never pushed', async () => {
    for (let minute = 0; minute < 10; minute++) {
      await beat({ terminal: minute % 2 === 0 ? 'down' : 'ok' })
      await evaluate()
    }
    expect(await recorded()).toEqual([])
  })
})

describe('failed payments', () => {
  it('3 with no card sale after them are pushed at the heartbeat that brings the third; a card sale replaces it', async () => {
    await postSales(current.app, store.device.key, 'a', [
      { id: 1, createdAt: '2026-03-16T04:59:00.000Z', amount: 4000, method: 'card' },
    ])
    await beat({ failedPayments: 2 }) // 05:01
    await evaluate()
    clock.advance(60_000)
    // A cash sale says nothing of the terminal.
    await postSales(current.app, store.device.key, 'b', [
      { id: 2, createdAt: '2026-03-16T05:02:00.000Z', amount: 4000, method: 'cash' },
    ])
    await heartbeat(current.app, store.device.key, { failedPayments: 1 }) // 05:02
    await until(() => fake.sent.length === 1)
    const tag = `terminal:${store.storeId}:failures:2026-03-16T04:59:00.000Z`
    expect(pushed()).toEqual([
      {
        title: '역삼점 · 카드 단말기 이상',
        body: '14:01부터 결제 실패 3건, 그 뒤 판매가 없습니다.',
        tag,
        store: store.storeId,
      },
    ])
    await beat({ failedPayments: 4 })
    await evaluate()
    expect(fake.sent).toHaveLength(1)
    await postSales(current.app, store.device.key, 'c', [
      { id: 3, createdAt: '2026-03-16T05:03:30.000Z', amount: 4000, method: 'mobile' },
    ])
    await beat({})
    await evaluate()
    expect(pushed()[1]).toMatchObject({
      title: '역삼점 · 카드 단말기 정상',
      body: '14:03에 다시 결제되었습니다.',
      tag,
    })
  })

  it('are not pushed when a card sale came after some of them, or when spread over more than 10 minutes', async () => {
    await beat({ failedPayments: 2 })
    await postSales(current.app, store.device.key, 'a', [
      { id: 1, createdAt: '2026-03-16T05:01:30.000Z', amount: 4000, method: 'card' },
    ])
    await beat({ failedPayments: 1 })
    await evaluate()
    for (let minute = 0; minute < 6; minute++) await beat({}) // 05:08
    await beat({ failedPayments: 1 }) // 05:09: 2 after the sale, within 10 minutes
    await evaluate()
    for (let minute = 0; minute < 9; minute++) await beat({}) // 05:18
    await beat({ failedPayments: 1 }) // 05:19: the 05:02 one is out of the window
    await evaluate()
    expect(await recorded()).toEqual([])
  })

  it('are not pushed while a device of the store is offline (its sales may be waiting)', async () => {
    const other = await pairedDevice(current.app, store.storeId, store.owner, '건조기 쪽')
    await settings({ deviceOffline: false })
    for (let minute = 0; minute < 4; minute++) await beat({})
    await beat({ failedPayments: 3 })
    await evaluate()
    expect(await recorded()).toEqual([])
    await heartbeat(current.app, other.key, {})
    await evaluate()
    expect((await recorded()).map((row) => row.kind)).toEqual(['paymentTerminal', 'paymentTerminal'])
  })
})

describe('the settings, quiet hours, snooze and caps', () => {
  it("each kind's switch: off raises nothing of that kind, on again raises it at the next evaluation", async () => {
    await settings({ paymentTerminal: false })
    await beat({ terminal: 'down', ...machine('error', 'E21') })
    await beat({ terminal: 'down', ...machine('error', 'E21') })
    expect((await recorded()).map((row) => row.kind)).toEqual(['machineError', 'machineError'])
    await settings({ paymentTerminal: true })
    await beat({ terminal: 'down', ...machine('error', 'E21') })
    await evaluate()
    expect((await recorded()).map((row) => row.kind)).toEqual([
      'machineError',
      'machineError',
      'paymentTerminal',
      'paymentTerminal',
    ])
  })

  it('in quiet hours an error is held, and pushed when they end if the machine is still in error', async () => {
    await settings({ quietHours: { start: '13:00', end: '14:05' } })
    await beat(machine('error', 'E21'))
    await beat(machine('error', 'E21'))
    expect((await alertRows(current.app)).map((row) => [row.kind, row.state])).toEqual([
      ['machineError', 'held'],
      ['machineError', 'held'],
    ])
    await beat(machine('error', 'E07', 'D1'))
    await beat(machine('idle', undefined, 'D1'))
    await beat({ machines: [{ machine: 'W3', state: 'error', code: 'E21' }] }) // 05:05, 14:05 KST
    await evaluate()
    expect(pushed()).toEqual([
      expect.objectContaining({
        title: '역삼점 · W3 고장',
        body: 'W3이(가) 14:01부터 고장 상태입니다 (E21).',
      }),
    ])
  })

  it('a snoozed store raises nothing', async () => {
    await settings({ snooze: true })
    await beat(machine('error', 'E21'))
    await beat(machine('error', 'E21'))
    await evaluate()
    expect(await recorded()).toEqual([])
  })

  it('the caps hold: of 4 machines in error, 3 alerts a store a day', async () => {
    const four = {
      machines: ['W1', 'W2', 'W3', 'W4'].map((name) => ({ machine: name, state: 'error', code: 'E21' })),
    }
    await beat(four)
    await beat(four)
    await evaluate()
    expect(await recorded()).toHaveLength(2 * 3)
    expect(fake.sent).toHaveLength(3)
  })
})

describe('from the first report to the push, heartbeats every 60 s', () => {
  it('is a heartbeat (60 s) at the heartbeat call, at most 2 minutes from the minute evaluation alone', async () => {
    const device = { id: store.device.deviceId, storeId: store.storeId }
    const delays = { call: [] as number[], minute: [] as number[] }
    // The error begins at each phase of the heartbeat against the minute's evaluation (at :00).
    for (const phase of [1, 30, 59]) {
      for (const path of ['call', 'minute'] as const) {
        await current.app.db.execute(sql`delete from alerts`)
        await current.app.db.execute(sql`delete from machines`)
        const start = Date.parse('2026-03-16T06:00:00.000Z') + phase * 1000
        const name = `W${phase}${path}`
        let firstReport: number | null = null
        for (let at = start - 60_000; at < start + 240_000; at += 1000) {
          const beats = (at - start) % 60_000 === 0
          const ticks = at % 60_000 === 0
          if (!beats && !ticks) continue
          clock.set(new Date(at).toISOString())
          if (beats) {
            const state = at >= start ? 'error' : 'running'
            if (state === 'error') firstReport ??= at
            const { machines } = machine(state, 'E21', name)
            if (path === 'call') await heartbeat(current.app, store.device.key, { machines })
            else
              await recordHeartbeat(current.app.db, {
                device,
                pending: 0,
                skewMs: null,
                machines,
                now: clock.now(),
              })
          }
          if (ticks) await current.app.alertRules.record(clock.now())
          const [row] = await queryRows<{ at: Date | null }>(
            current.app.db,
            sql`select min(created_at) as at from alerts where kind = 'machineError'`,
          )
          if (row?.at) {
            delays[path].push(new Date(row.at).getTime() - (firstReport ?? 0))
            break
          }
        }
      }
    }
    expect(delays.call).toEqual([60_000, 60_000, 60_000])
    // The confirming heartbeat at :01, :30, :59 of a minute: the next evaluation at :00.
    expect(delays.minute).toEqual([119_000, 90_000, 61_000])
  }, 60_000)
})
