// The machine and payment terminal rules (docs/product.md §12, decisions 185–188): pure functions of a
// store's state at now to candidates, one alert per episode.
// - A machine's error once a second heartbeat confirmed it (decision 185), while its report is fresh
//   (named within the offline rule's 3 heartbeats: a device gone offline leaves no stale error alert):
//   episode the machine and its error's start.
// - A device's terminal `down` confirmed the same way, while the device is heard: episode the device and
//   the outage's start.
// - 3 failed payments in the last 10 minutes with no terminal sale after them (decision 186), while no
//   device of the store is offline (its sales may be waiting in its queue) and none says its terminal is
//   down (that alert says it; failures while it was down are not counted after it is back): episode
//   since when they count (one alert a run of failures).
import { machineErrorAlert, terminalAlert } from '../../domain/alert-texts.ts'
import { isOffline } from '../../domain/devices.ts'
import { anyOffline } from './device-offline.ts'
import type { Equipment } from './equipment-state.ts'
import type { Candidate, DeviceState } from './store-state.ts'

/** Failed payments after the last sale that make an alert. */
export const failuresToAlert = 3

const iso = (at: number) => new Date(at).toISOString()

/**
 * Episodes: `error:<since>:<machine>`, `down:<device>:<since>`, `failures:<from | none>` (since when
 * failures count: the last terminal sale, or the terminal back to `ok`).
 */
export const episodes = {
  error: (machine: string, since: number) => `error:${iso(since)}:${machine}`,
  down: (deviceId: number, since: number) => `down:${deviceId}:${iso(since)}`,
  failures: (from: number | null) => `failures:${from === null ? 'none' : iso(from)}`,
}

/** An episode read back: what it is about, for its replacement when the cause ends. */
export function parseEpisode(episode: string) {
  let match = /^error:([^:]+:[^:]+:[^:]+):(.+)$/s.exec(episode)
  if (match)
    return { type: 'error' as const, since: Date.parse(match[1] as string), machine: match[2] as string }
  match = /^down:(\d+):(.+)$/.exec(episode)
  if (match)
    return { type: 'down' as const, deviceId: Number(match[1]), since: Date.parse(match[2] as string) }
  match = /^failures:(.+)$/.exec(episode)
  if (match)
    return {
      type: 'failures' as const,
      from: match[1] === 'none' ? null : Date.parse(match[1] as string),
    }
  return null
}

export interface EquipmentStore {
  id: number
  name: string
  devices: DeviceState[]
  equipment: Equipment
}

export function machineErrorCandidates(store: EquipmentStore, now: number): Candidate[] {
  return store.equipment.machines
    .filter((machine) => machine.confirmedAt !== null && !isOffline(machine.reportedAt, now))
    .map((machine) => {
      const episode = episodes.error(machine.machine, machine.since)
      return {
        storeId: store.id,
        kind: 'machineError',
        episode,
        ...machineErrorAlert(store.name, machine, machine.code, machine.since),
        tag: `machine:${store.id}:${episode}`,
      }
    })
}

export function terminalCandidates(store: EquipmentStore, now: number): Candidate[] {
  const { terminals, failures } = store.equipment
  const candidates: Candidate[] = terminals
    .filter((terminal) => terminal.confirmedAt !== null && !isOffline(terminal.seenAt, now))
    .map((terminal) => {
      const episode = episodes.down(terminal.deviceId, terminal.since)
      return {
        storeId: store.id,
        kind: 'paymentTerminal',
        episode,
        ...terminalAlert(store.name, { down: true }, terminal.since),
        tag: `terminal:${store.id}:${episode}`,
      }
    })
  if (!failures || terminals.length > 0 || anyOffline(store.devices, now)) return candidates
  const after = failures.reports.filter((report) => failures.from === null || report.at > failures.from)
  const count = after.reduce((sum, report) => sum + report.count, 0)
  const first = after[0]
  if (count < failuresToAlert || !first) return candidates
  const episode = episodes.failures(failures.from)
  candidates.push({
    storeId: store.id,
    kind: 'paymentTerminal',
    episode,
    ...terminalAlert(store.name, { failedPayments: count }, first.at),
    tag: `terminal:${store.id}:${episode}`,
  })
  return candidates
}

/** The store's machine and terminal candidates at `now`. */
export const equipmentCandidates = (store: EquipmentStore, now: number) => [
  ...machineErrorCandidates(store, now),
  ...terminalCandidates(store, now),
]
