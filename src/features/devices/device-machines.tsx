// What a device reports beyond itself (docs/product.md §14): its payment terminal's state and the
// machines whose last state came from it. Both are our server's later additions to the device's
// answer: an older server sends neither, and nothing is shown then.
import type { Device } from '../../../contract/api.ts'
import { dayAndTime } from '../../../domain/format.ts'
import type { MachineState, TerminalState } from '../../../domain/machines.ts'

/** The device as the list gives it, its terminal and machines optional (absent on an older server). */
export type ReportingDevice = Omit<Device, 'terminal' | 'terminalSince' | 'machines'> & {
  terminal?: TerminalState | null
  terminalSince?: string | null
  machines?: { machine: string; state: MachineState | null; code?: string | null }[]
}

/**
 * A machine's state as the sales screen's machines section says it (sales/machines/machine-state.ts: a
 * test holds the two equal); its own copy, so that neither screen's chunk needs the other's.
 */
export function stateText(machine: { state: MachineState | null; code?: string | null }): string | null {
  if (machine.state === 'error') return machine.code ? `고장 ${machine.code}` : '고장'
  return machine.state ? { running: '사용 중', idle: '대기', offline: '응답 없음' }[machine.state] : null
}

/** `단말기 정상`, `단말기 오류 · 11월 25일 17:40부터`; null when the terminal never said. */
export function terminalText(device: ReportingDevice): string | null {
  if (device.terminal === 'ok') return '단말기 정상'
  if (device.terminal !== 'down') return null
  const since = device.terminalSince ? Date.parse(device.terminalSince) : Number.NaN
  return Number.isNaN(since) ? '단말기 오류' : `단말기 오류 · ${dayAndTime(since)}부터`
}

export function DeviceMachines({ device }: { device: ReportingDevice }) {
  const terminal = terminalText(device)
  const machines = device.machines ?? []
  if (!terminal && machines.length === 0) return null
  return (
    <div className="device-machines">
      {terminal && (
        <p
          className={`device-terminal device-terminal-${device.terminal === 'ok' ? 'ok' : 'down'}`}
          data-testid="device-terminal"
        >
          {terminal}
        </p>
      )}
      {machines.length > 0 && (
        <ul className="device-machine-list" aria-label={`‘${device.name}’의 기계`}>
          {machines.map((machine) => (
            <li key={machine.machine} data-testid="device-machine">
              <span className="device-machine-name">{machine.machine}</span>{' '}
              <span className={`device-machine-state device-machine-state-${machine.state ?? 'none'}`}>
                {stateText(machine) ?? '상태 모름'}
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
