// What the 알림톡 outbox's tests share (message-sweep.test.ts, message-reports.test.ts): one app with SOLAPI
// stood in (solapi-stand-in.ts) and the quiet alert by 알림톡 for the owner, its people as channels.test.ts has them.
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach } from 'vitest'
import { queryRows } from '../../../server/db/client.ts'
import { ownerPhone } from '../devices/helpers.ts'
import { apiKey, apiSecret, pfId, sender, solapiStandIn } from '../messages/solapi-stand-in.ts'
import { fakeTransport } from '../push/helpers.ts'
import { bearer, sharedTestApp, type TestApp, testClock, withAnotherInstance } from '../test-app.ts'
import { pushEnv, quietReadyStore } from './helpers.ts'

export function messageOutboxSetup() {
  const provider = solapiStandIn()
  beforeAll(() => provider.start())
  afterAll(() => provider.stop())
  // Monday 16 March 2026, 14:00 KST; the store's last sale was at 01:50 UTC (10:50 KST).
  const clock = testClock('2026-03-16T05:00:00.000Z')
  const fake = fakeTransport()
  const env = {
    ...pushEnv,
    SOLAPI_API_KEY: apiKey,
    SOLAPI_API_SECRET: apiSecret,
    SOLAPI_SENDER: sender,
    KAKAO_PFID: pfId,
    KAKAO_TEMPLATE_QUIET: 'KA01TPQUIET',
  }
  const current = sharedTestApp({
    clock,
    env,
    pushTransport: () => fake.transport,
    messageRetry: { attempts: 1, firstDelayMs: 5 },
  })
  const state = {} as { people: Awaited<ReturnType<typeof quietReadyStore>>; ownerId: number }
  beforeEach(async () => {
    fake.clear()
    provider.reset()
    state.people = await quietReadyStore(current.app, '2026-03-16T02:00:00.000Z')
    const chosen = await current.app.inject({
      method: 'PUT',
      url: '/api/v0/alerts/settings',
      headers: bearer(state.people.owner),
      payload: { storeId: state.people.storeId, channels: { quiet: 'kakao' } },
    })
    if (chosen.statusCode !== 200) throw new Error(chosen.body)
    const [owner] = await queryRows<{ id: number }>(
      current.app.db,
      sql`select id from users where phone = ${ownerPhone}`,
    )
    state.ownerId = Number(owner?.id)
  })

  const kakaoTexts = () =>
    provider.received.map((request) => String((request.body.messages[0] as { text: string }).text))
  /** The owner's 알림톡 deliveries in the list, newest first. */
  const kakaoDeliveries = async () => {
    const answer = await current.app.inject({
      method: 'GET',
      url: '/api/v0/alerts',
      headers: bearer(state.people.owner),
    })
    return (answer.json().alerts as { deliveries: { channel: string }[] }[]).flatMap((alert) =>
      alert.deliveries.filter((delivery) => delivery.channel === 'kakao'),
    )
  }
  /** The 알림톡 rows' statuses and reports, as kept (the list wants a sign-in the clock has not outlived). */
  const kakaoRows = () =>
    queryRows<{ message_status: string | null; message_report: string | null }>(
      current.app.db,
      sql`select message_status, message_report from alerts where by_kakao order by id`,
    )
  /** Runs `use` with another instance on the same database (its own pool on PostgreSQL), closed after. */
  const withSecondInstance = (use: (second: TestApp) => Promise<void>) =>
    withAnotherInstance(current.app, { clock, env, pushTransport: () => fake.transport }, use)
  return { provider, clock, current, state, kakaoTexts, kakaoDeliveries, kakaoRows, withSecondInstance }
}
