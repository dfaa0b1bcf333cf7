// Held changes calls over real HTTP, on either database: a client that goes away leaves no waiter
// behind, and closing the server answers the held calls and completes within 2 s.
import { afterEach, describe, expect, it } from 'vitest'
import { heldPerSignIn } from '../../../server/live/live.ts'
import { storeWithPeople } from '../devices/helpers.ts'
import { createTestApp, resetDatabase, type TestApp, testClock, until } from '../test-app.ts'

const clock = testClock('2026-03-15T03:00:00.000Z')
let opened: TestApp | null = null
afterEach(async () => {
  await opened?.close()
  opened = null
})

async function listening() {
  const app = await createTestApp({ clock })
  opened = app
  await resetDatabase(app)
  const people = await storeWithPeople(app)
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const held = (signal?: AbortSignal) =>
    fetch(`${address}/api/v0/store/${people.storeId}/usage/changes?year=2026&after=0&wait=25`, {
      headers: { authorization: `Bearer ${people.owner}` },
      signal,
    })
  return { app, held }
}

describe('held changes calls over HTTP', () => {
  it('leave no waiter behind when their clients go away', async () => {
    const { app, held } = await listening()
    // As many as one sign-in may hold (decision 150).
    const aborts = Array.from({ length: heldPerSignIn }, () => new AbortController())
    const calls = aborts.map((abort) => held(abort.signal).catch((error: Error) => error.name))
    await until(() => app.live.held === heldPerSignIn)
    for (const abort of aborts) abort.abort()
    expect(await Promise.all(calls)).toEqual(Array(heldPerSignIn).fill('AbortError'))
    await until(() => app.live.held === 0)
  })

  it('are answered when the server closes, which completes within 2 s', async () => {
    const { app, held } = await listening()
    const calls = Array.from({ length: 5 }, () => held())
    await until(() => app.live.held === 5)
    const started = Date.now()
    opened = null
    await app.close()
    expect(Date.now() - started).toBeLessThan(2_000)
    const answers = await Promise.all(calls)
    for (const answer of answers) {
      expect(answer.status).toBe(200)
      expect(await answer.json()).toEqual({ rev: 0, changes: [], count: 0, sum: 0 })
    }
  })
})
