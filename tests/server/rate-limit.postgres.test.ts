// The one rate-limit mechanism (server/rate-limit.ts) on two instances sharing one PostgreSQL: requests
// sent to both at once take exactly the slots a limit has, whichever instance answers; the others get
// the limit's own 429 message and a Retry-After until the window has room. Both places a limit is
// kept: a sliding window in rate_events (pairing attempts, devices added, test notifications) and a
// fixed minute on the device's row (a device key's requests).
import { describe, expect, it } from 'vitest'
import { messages } from '../../server/errors.ts'
import { addDevice, pairedDevice, storeWithPeople } from './devices/helpers.ts'
import { bearer, resetDatabase, type TestApp, testClock, twoInstances } from './test-app.ts'

const clock = testClock('2026-03-15T03:00:00.000Z')
const env = {
  PAIR_ATTEMPTS_PER_IP_PER_HOUR: '3',
  DEVICES_ADDED_PER_STORE_PER_HOUR: '4',
  DEVICE_REQUESTS_PER_MINUTE: '5',
}
let one: TestApp
let two: TestApp

twoInstances({ clock, env }, (apps) => {
  one = apps.one
  two = apps.two
})

/** An answer as these tests read it. */
interface Answer {
  statusCode: number
  headers: Record<string, unknown>
  json(): { message?: string }
}

/** Sends `count` requests, alternately to each instance, all at once; their statuses and 429s. */
async function atOnce(count: number, send: (app: TestApp, i: number) => Promise<Answer>) {
  const answers = await Promise.all(Array.from({ length: count }, (_, i) => send(i % 2 ? two : one, i)))
  const refused = answers.filter((answer) => answer.statusCode === 429)
  return { statuses: answers.map((answer) => answer.statusCode), refused }
}

describe('one rate-limit mechanism, two instances on one PostgreSQL', () => {
  it('a sliding window: exactly its slots are taken, the rest refused with its message and Retry-After', async () => {
    clock.set()
    await resetDatabase(one)
    const people = await storeWithPeople(one)
    // Devices added to a store: 4 an hour.
    const added = await atOnce(10, (app, i) =>
      app.inject({
        method: 'POST',
        url: `/api/v0/store/${people.storeId}/devices`,
        headers: bearer(people.owner),
        payload: { name: `상자 ${i}` },
      }),
    )
    expect(added.statuses.filter((status) => status === 201)).toHaveLength(4)
    expect(added.refused).toHaveLength(6)
    for (const answer of added.refused) {
      expect(answer.json().message).toBe(messages.tooManyDevices)
      expect(answer.headers['retry-after']).toBe('3600')
    }
    // Pairing attempts from one address: 3 an hour, a wrong code counting as one.
    const paired = await atOnce(8, (app) =>
      app.inject({ method: 'POST', url: '/api/v0/device/pair', payload: { code: 'WRONG-CODE' } }),
    )
    expect(paired.statuses.filter((status) => status === 401)).toHaveLength(3)
    expect(paired.refused).toHaveLength(5)
    for (const answer of paired.refused) {
      expect(answer.json().message).toBe(messages.tooManyPairings)
      expect(answer.headers['retry-after']).toBe('3600')
    }
    // Half an hour on, the window still holds them; an hour after them it has room again.
    clock.advance(30 * 60_000)
    const later = await two.inject({ method: 'POST', url: '/api/v0/device/pair', payload: { code: 'WRONG' } })
    expect(later.statusCode).toBe(429)
    expect(later.headers['retry-after']).toBe('1800')
    clock.advance(30 * 60_000)
    expect(
      (await one.inject({ method: 'POST', url: '/api/v0/device/pair', payload: { code: 'WRONG' } }))
        .statusCode,
    ).toBe(401)
  })

  it("a device key's fixed minute on its row: exactly its requests pass, on either instance", async () => {
    clock.set()
    await resetDatabase(one)
    const people = await storeWithPeople(one)
    await addDevice(one, people.storeId, people.owner)
    const { key } = await pairedDevice(one, people.storeId, people.owner)
    clock.advance(10_000)
    const beats = await atOnce(12, (app) =>
      app.inject({
        method: 'POST',
        url: '/api/v0/device/heartbeat',
        headers: bearer(key),
        payload: { pending: 0 },
      }),
    )
    expect(beats.statuses.filter((status) => status === 204)).toHaveLength(5)
    expect(beats.refused).toHaveLength(7)
    for (const answer of beats.refused) {
      expect(answer.json().message).toBe(messages.tooManyDeviceRequests)
      expect(answer.headers['retry-after']).toBe('60')
    }
    clock.advance(60_000)
    const next = await two.inject({
      method: 'POST',
      url: '/api/v0/device/heartbeat',
      headers: bearer(key),
      payload: { pending: 0 },
    })
    expect(next.statusCode).toBe(204)
  })
})
