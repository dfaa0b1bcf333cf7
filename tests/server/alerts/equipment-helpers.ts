// What the machine and terminal alert tests share: a store with its owner subscribed and a paired device
// that sends heartbeats through the real call.
import type { MachineReport } from '../../../contract/machines.ts'
import { pairedDevice, storeWithPeople } from '../devices/helpers.ts'
import { bearer, type TestApp } from '../test-app.ts'
import { subscribe } from './helpers.ts'

export async function heartbeat(
  app: Pick<TestApp, 'inject'>,
  key: string,
  body: Record<string, unknown> = {},
) {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v0/device/heartbeat',
    headers: bearer(key),
    payload: { pending: 0, ...body },
  })
  if (response.statusCode !== 204) throw new Error(`heartbeat: ${response.statusCode} ${response.body}`)
}

/** The owner's store (no sales: no quiet alert), the owner subscribed, a device paired. */
export async function storeWithDevice(app: TestApp) {
  const people = await storeWithPeople(app)
  const ownerEndpoint = await subscribe(app, people.owner, 'owner')
  const device = await pairedDevice(app, people.storeId, people.owner)
  return { ...people, ownerEndpoint, device }
}

/** A heartbeat's report of one washer (`W3` unless named). */
export const machine = (state: MachineReport['state'], code?: string, name = 'W3') => ({
  machines: [{ machine: name, kind: 'washer', state, ...(code ? { code } : {}) }] as MachineReport[],
})
