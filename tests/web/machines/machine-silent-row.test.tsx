// The machines section's `조용함` flag: the machine-silent rule (domain/machine-silent.ts) run on what
// the machines answer carries (`silence`, `historyDays`), shown on the silent machine's row only, this
// month only, and never from an answer without those fields (an older server).
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { render, screen, within } from '@testing-library/react'
import Cookies from 'js-cookie'
import { describe, expect, it } from 'vitest'
import type { Store } from '../../../contract/api.ts'
import type { Machine, MachinesAnswer } from '../../../contract/machines.ts'
import { silentMachineNames } from '../../../src/features/sales/machines/machine-text.ts'
import { MachinesSection } from '../../../src/features/sales/machines/machines-section.tsx'
import { useStoreStore, useUserStore } from '../../../src/lib/session-state.ts'
import { fakeServer, json } from '../fake-server.ts'

const now = new Date('2026-11-25T09:00:00.000Z')

const machine = (fields: Partial<Machine> & Pick<Machine, 'machine'>): Machine => ({
  name: fields.machine,
  kind: 'washer',
  state: 'idle',
  stateSince: null,
  code: null,
  lastSaleAt: '2026-11-25T08:30:00.000Z',
  month: { sum: 0, count: 0 },
  today: { sum: 0, count: 0 },
  refunds: { sum: 0, count: 0 },
  ...fields,
})

// Three washers of equal shares (300 sales each in 28 days): W3 has seen 60 of the others' sales since
// its last sale, far past its threshold (20); W1 and W2 sold lately.
const answer: MachinesAnswer = {
  at: now.toISOString(),
  machines: [
    machine({ machine: 'W1', silence: { historySales: 300, othersSince: 1 } }),
    machine({ machine: 'W2', silence: { historySales: 300, othersSince: 0 } }),
    machine({
      machine: 'W3',
      lastSaleAt: '2026-11-25T01:00:00.000Z',
      silence: { historySales: 300, othersSince: 60 },
    }),
    machine({ machine: 'D1', kind: 'dryer', silence: { historySales: 500, othersSince: 0 } }),
  ],
  methods: [],
  refunds: { sum: 0, count: 0 },
  historyDays: 28,
}

function show(body: MachinesAnswer, isCurrentMonth = true) {
  const store: Store = { id: 1, name: '역삼점', images: [], role: 'staff' }
  Cookies.set('accessToken', 'a1', { path: '/' })
  Cookies.set('refreshToken', 'r1', { path: '/' })
  useUserStore.setState({
    user: { id: 1, name: '이직원', phone: '01012345678', image: null },
    isLoggedIn: true,
  })
  useStoreStore.setState({ store, stores: [store] })
  fakeServer({ 'GET /api/v0/store/1/machines': () => json(200, body) })
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  render(
    <QueryClientProvider client={client}>
      <MachinesSection
        storeId={1}
        year={2026}
        month={11}
        monthTotal={0}
        now={now}
        isCurrentMonth={isCurrentMonth}
      />
    </QueryClientProvider>,
  )
}

const row = async (name: string) =>
  (await screen.findAllByTestId('machine')).find((item) => item.dataset.machine === name) as HTMLElement

describe('a silent machine in the machines section', () => {
  it('the rule flags the washer the others outsold since its last sale, and no other', () => {
    expect([...silentMachineNames(answer)]).toEqual(['W3'])
    // Below its threshold, or in error (the error says it), or without the answer's fields: nothing.
    const fewer = answer.machines.map((m) =>
      m.machine === 'W3' ? { ...m, silence: { historySales: 300, othersSince: 10 } } : m,
    )
    expect(silentMachineNames({ ...answer, machines: fewer }).size).toBe(0)
    const error = answer.machines.map((m) => (m.machine === 'W3' ? { ...m, state: 'error' as const } : m))
    expect(silentMachineNames({ ...answer, machines: error }).size).toBe(0)
    const old = answer.machines.map(({ silence: _, ...m }) => m)
    expect(silentMachineNames({ ...answer, machines: old, historyDays: undefined }).size).toBe(0)
  })

  it("reads each machine's runs: a washer whose runs are short is silent sooner than the geometric threshold", () => {
    // 15 of the others' sales: under the geometric threshold (20 at a share of 1/3), past the one its
    // runs give (40 of 290 reached 4, 200 reached 2: a scale of 1.2, about 12).
    const runs = [290, 200, 40, 0, 0, 0, 0, 0]
    const at = (silence: Machine['silence']) =>
      answer.machines.map((m) => (m.machine === 'W3' ? { ...m, silence } : m))
    expect(silentMachineNames({ ...answer, machines: at({ historySales: 300, othersSince: 15 }) }).size).toBe(
      0,
    )
    expect([
      ...silentMachineNames({ ...answer, machines: at({ historySales: 300, othersSince: 15, runs }) }),
    ]).toEqual(['W3'])
    expect(
      silentMachineNames({ ...answer, machines: at({ historySales: 300, othersSince: 11, runs }) }).size,
    ).toBe(0)
  })

  it('shows `조용함` on that row only', async () => {
    show(answer)
    expect(within(await row('W3')).getByTestId('machine-silent')).toHaveTextContent('조용함')
    for (const name of ['W1', 'W2', 'D1'])
      expect(within(await row(name)).queryByTestId('machine-silent')).toBeNull()
  })

  it('says nothing of a past month (the flag is about now)', async () => {
    show(answer, false)
    expect(within(await row('W3')).queryByTestId('machine-silent')).toBeNull()
  })
})
