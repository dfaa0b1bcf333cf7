// The store's machines, how a sale was paid and what was refunded (docs/product.md §14): the names the
// device, the server and the screens agree on, one owner each. A sale's own checks are sales.ts's.

/** A machine as a device names it (`W3`, `건조기2`): 1–32 visible characters, inner spaces allowed. */
export const maxMachineLength = 32
/** At most this many machines in one heartbeat (400 beyond). */
export const maxMachinesPerHeartbeat = 64

export const paymentMethods = ['card', 'cash', 'coin', 'mobile', 'point', 'other'] as const
export type PaymentMethod = (typeof paymentMethods)[number]

export const machineKinds = ['washer', 'dryer', 'other'] as const
export type MachineKind = (typeof machineKinds)[number]

export const machineStates = ['idle', 'running', 'error', 'offline'] as const
export type MachineState = (typeof machineStates)[number]

export const terminalStates = ['ok', 'down'] as const
export type TerminalState = (typeof terminalStates)[number]

/** The Korean word for each payment method, as the screens and the tax export's header say it. */
export const methodNames: Record<PaymentMethod, string> = {
  card: '카드',
  cash: '현금',
  coin: '동전',
  mobile: '간편결제',
  point: '포인트',
  other: '기타',
}

export const kindNames: Record<MachineKind, string> = { washer: '세탁기', dryer: '건조기', other: '기타' }

/** Whether a text is a machine's name as devices send it: 1–32 visible characters, no edge spaces. */
export function isMachineName(text: unknown): text is string {
  if (typeof text !== 'string' || text.length === 0) return false
  // Counted in characters as a person sees them (a Hangul syllable is one), not UTF-16 units.
  if ([...text].length > maxMachineLength) return false
  return (
    /^[\x21-\x7e\u00a0-\uffff]([\x20-\x7e\u00a0-\uffff]*[\x21-\x7e\u00a0-\uffff])?$/u.test(text) &&
    !/\p{Cs}/u.test(text)
  )
}
