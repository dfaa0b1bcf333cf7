// A machine's state in words (docs/product.md §14), as the sales screen's machines section says it; the
// devices screen says it in the same words (devices/device-machines.tsx; a test holds them equal).
import type { MachineState } from '../../../../domain/machines.ts'

/** `사용 중`, `대기`, `고장 E21` (its code when known), `응답 없음`; null when never reported. */
export function stateText(machine: { state: MachineState | null; code?: string | null }): string | null {
  switch (machine.state) {
    case 'running':
      return '사용 중'
    case 'idle':
      return '대기'
    case 'error':
      return machine.code ? `고장 ${machine.code}` : '고장'
    case 'offline':
      return '응답 없음'
    default:
      return null
  }
}
