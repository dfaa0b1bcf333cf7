// Taking a member's access back takes effect at once on every instance (docs/product.md §15): two
// instances on one PostgreSQL, the safety poll slowed to a minute so that only the notification can
// wake them. A removal on one ends the member's streams of the store on the other within 2 s, and their
// next call is a 403; hiding the money ends the member's stream of the store's changes (won amounts).
import { beforeEach, describe, expect, it } from 'vitest'
import { messages } from '../../../server/errors.ts'
import { bearer, resetDatabase, type TestApp, testClock, twoInstances, until } from '../test-app.ts'
import { openStream } from '../usage/stream-client.ts'
import { call, team } from './helpers.ts'

const clock = testClock('2026-03-15T03:00:00.000Z')
let one: TestApp
let two: TestApp
let people: Awaited<ReturnType<typeof team>>
let address = ''

twoInstances({ clock, livePollMs: 60_000 }, async (apps) => {
  one = apps.one
  two = apps.two
  address = await two.listen({ port: 0, host: '127.0.0.1' })
})
beforeEach(async () => {
  await resetDatabase(one)
  people = await team(one)
})

/** The member's streams of the store's changes and of their overview, opened on instance two. */
async function streamsOf(token: string) {
  const changes = (
    await call(two, 'GET', `/store/${people.storeId}/usage/changes?year=2026&after=0`, token)
  ).json()
  const overview = (await call(two, 'GET', '/stores/overview', token)).json()
  const gone = new AbortController()
  const changesStream = await openStream(
    `${address}/api/v0/store/${people.storeId}/usage/changes?year=2026&after=${changes.rev}&wait=25`,
    bearer(token),
    gone.signal,
  )
  const overviewStream = await openStream(
    `${address}/api/v0/stores/overview?after=${overview.rev}&wait=25`,
    bearer(token),
    gone.signal,
  )
  await until(() => two.live.held === 2)
  return { changesStream, overviewStream, gone }
}

describe("a member's access taken back on another instance", () => {
  it("ends the member's streams of the store within 2 s; the next call is a 403", async () => {
    const { changesStream, overviewStream, gone } = await streamsOf(people.staff)
    const removed = await call(
      one,
      'DELETE',
      `/store/${people.storeId}/members/${people.ids.staff}`,
      people.owner,
    )
    expect(removed.statusCode).toBe(204)
    // From the removal's answer (just after its commit, which delivers the notification).
    const started = Date.now()
    await until(() => changesStream.state.ended && overviewStream.state.ended, 2_000)
    expect(Math.max(changesStream.state.endedAt, overviewStream.state.endedAt) - started).toBeLessThan(2_000)
    const next = await call(two, 'GET', `/store/${people.storeId}/usage?year=2026`, people.staff)
    expect(next.statusCode).toBe(403)
    expect((await call(two, 'GET', '/user', people.staff)).json().stores).toEqual([])
    gone.abort()
    await until(() => two.live.held === 0)
  })

  it('ends the stream of the changes (won amounts) when the owner hides the money', async () => {
    const { changesStream, gone } = await streamsOf(people.staff)
    const started = Date.now()
    const hidden = await call(
      one,
      'PATCH',
      `/store/${people.storeId}/members/${people.ids.staff}`,
      people.owner,
      {
        showsMoney: false,
      },
    )
    expect(hidden.statusCode).toBe(204)
    await until(() => changesStream.state.ended, 2_000)
    expect(Date.now() - started).toBeLessThan(2_000)
    const usage = await call(two, 'GET', `/store/${people.storeId}/usage?year=2026`, people.staff)
    expect(usage.statusCode).toBe(403)
    expect(usage.json().message).toBe(messages.moneyHidden)
    gone.abort()
    await until(() => two.live.held === 0)
  })

  it("leaves the other members' streams open", async () => {
    const { changesStream, gone } = await streamsOf(people.manager)
    await call(one, 'DELETE', `/store/${people.storeId}/members/${people.ids.staff}`, people.owner)
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(changesStream.state.ended).toBe(false)
    gone.abort()
    await until(() => two.live.held === 0)
  })
})
