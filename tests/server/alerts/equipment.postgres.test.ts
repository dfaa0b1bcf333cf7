// The machine and terminal alerts on two instances of the app on one PostgreSQL: the heartbeats reach
// either instance, the confirming one runs the store's rules there while both evaluate the minute's at
// the same time; each episode is pushed once, and its replacement once.
import { beforeEach, describe, expect, it } from 'vitest'
import { fakeTransport } from '../push/helpers.ts'
import { resetDatabase, type TestApp, testClock, twoInstances, until } from '../test-app.ts'
import { heartbeat, machine, storeWithDevice } from './equipment-helpers.ts'
import { pushEnv } from './helpers.ts'

const clock = testClock('2026-03-16T05:00:00.000Z')
const fakeOne = fakeTransport()
const fakeTwo = fakeTransport()
let one: TestApp
let two: TestApp
let store: Awaited<ReturnType<typeof storeWithDevice>>

twoInstances(
  {
    clock,
    env: pushEnv,
    pushTransport: () => fakeOne.transport,
    second: { pushTransport: () => fakeTwo.transport },
  },
  (apps) => {
    one = apps.one
    two = apps.two
  },
)
beforeEach(async () => {
  clock.set()
  fakeOne.clear()
  fakeTwo.clear()
  await resetDatabase(one)
  store = await storeWithDevice(one)
})

const sent = () =>
  [...fakeOne.sent, ...fakeTwo.sent].map((request) => JSON.parse(request.payload).body as string)

/** A heartbeat a minute later to `app`, while both instances evaluate, three times each, at once. */
async function beatWhileEvaluating(app: TestApp, body: Record<string, unknown>) {
  clock.advance(60_000)
  await Promise.all([
    heartbeat(app, store.device.key, body),
    ...[one, two, one, two, one, two].map((instance) => instance.alertRules.evaluate(clock.now())),
  ])
  await Promise.all([one, two].map((instance) => instance.alertRules.evaluate(clock.now())))
}

describe('two instances on one PostgreSQL', () => {
  it("push a machine's error once, and its replacement once", async () => {
    await beatWhileEvaluating(one, machine('error', 'E21'))
    await beatWhileEvaluating(two, machine('error', 'E21'))
    await until(() => sent().length === 1)
    await beatWhileEvaluating(one, machine('error', 'E21'))
    await beatWhileEvaluating(two, machine('idle'))
    await beatWhileEvaluating(one, machine('idle'))
    expect(sent().sort()).toEqual(
      ['W3이(가) 14:01부터 고장 상태입니다 (E21).', 'W3이(가) 14:04부터 다시 작동합니다 (3분 고장).'].sort(),
    )
  })

  it('push the terminal down once, and failed payments once', async () => {
    await beatWhileEvaluating(one, { terminal: 'down' })
    await beatWhileEvaluating(two, { terminal: 'down' })
    await beatWhileEvaluating(one, { terminal: 'ok' })
    await beatWhileEvaluating(two, { failedPayments: 2 })
    await beatWhileEvaluating(one, { failedPayments: 1 })
    await beatWhileEvaluating(two, { failedPayments: 1 })
    await until(() => sent().length === 3)
    // Pushed by either instance: in no order between the two.
    expect(sent().sort()).toEqual(
      [
        '카드 단말기가 14:01부터 결제를 받지 못합니다.',
        '카드 단말기가 14:03부터 다시 결제를 받습니다 (2분 중단).',
        '14:04부터 결제 실패 3건, 그 뒤 판매가 없습니다.',
      ].sort(),
    )
  })
})
