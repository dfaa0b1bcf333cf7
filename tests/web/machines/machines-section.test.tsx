// The sales screen's machines section (docs/product.md §14, decisions 172 and 174) rendered from an
// answer, with the API faked at the network edge: states, bars proportional, the method split, the
// refunds line, what no machine holds, owner and staff controls, and the refetch after a change of the
// store-year shown.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import Cookies from 'js-cookie'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { Store } from '../../../contract/api.ts'
import type { Machine, MachinesAnswer } from '../../../contract/machines.ts'
import { MachinesSection } from '../../../src/features/sales/machines/machines-section.tsx'
import { SalesPage } from '../../../src/features/sales/sales-page.tsx'
import { useStoreStore, useUserStore } from '../../../src/lib/session-state.ts'
import { usageKeys } from '../../../src/lib/usage-keys.ts'
import { fakeServer, json } from '../fake-server.ts'

const now = new Date('2026-11-25T09:00:00.000Z')

const machine = (fields: Partial<Machine> & Pick<Machine, 'machine'>): Machine => ({
  name: fields.machine,
  kind: 'washer',
  state: null,
  stateSince: null,
  code: null,
  lastSaleAt: null,
  month: { sum: 0, count: 0 },
  today: { sum: 0, count: 0 },
  refunds: { sum: 0, count: 0 },
  ...fields,
})

const answer: MachinesAnswer = {
  at: now.toISOString(),
  machines: [
    machine({
      machine: 'W1',
      name: '세탁기 1번',
      state: 'running',
      stateSince: '2026-11-25T08:40:00.000Z',
      lastSaleAt: '2026-11-25T08:55:00.000Z',
      month: { sum: 40_000, count: 10 },
      today: { sum: 8_000, count: 2 },
    }),
    machine({
      machine: 'W3',
      state: 'error',
      code: 'E21',
      lastSaleAt: '2026-11-25T06:00:00.000Z',
      month: { sum: 20_000, count: 5 },
      refunds: { sum: -4_000, count: 1 },
    }),
    machine({ machine: 'D1', kind: 'dryer', state: 'offline', month: { sum: 10_000, count: 5 } }),
    machine({ machine: 'D2', kind: 'dryer', state: 'idle' }),
    machine({ machine: 'X9', kind: 'other' }),
  ],
  methods: [
    { method: 'card', sum: 60_000, count: 15 },
    { method: 'cash', sum: 15_000, count: 4 },
    { method: 'mobile', sum: 0, count: 0 },
    { method: 'other', sum: 5_000, count: 2 },
  ],
  refunds: { sum: -4_000, count: 1 },
}
// The screen's month total: the machines' 70,000 and 6,000 on no machine.
const monthTotal = 76_000

const owned: Store = { id: 1, name: '역삼점', images: [], role: 'owner' }

function signedIn(store: Store) {
  Cookies.set('accessToken', 'a1', { path: '/' })
  Cookies.set('refreshToken', 'r1', { path: '/' })
  useUserStore.setState({
    user: { id: 1, name: '김사장', phone: '01012345678', image: null },
    isLoggedIn: true,
  })
  useStoreStore.setState({ store, stores: [store] })
}

function show(
  store: Store = owned,
  body: MachinesAnswer = answer,
  handlers: Parameters<typeof fakeServer>[0] = {},
) {
  signedIn(store)
  const server = fakeServer({ 'GET /api/v0/store/1/machines': () => json(200, body), ...handlers })
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  render(
    <QueryClientProvider client={client}>
      <MachinesSection storeId={1} year={2026} month={11} monthTotal={monthTotal} now={now} isCurrentMonth />
    </QueryClientProvider>,
  )
  return { server, client }
}

const row = async (name: string) =>
  (await screen.findAllByTestId('machine')).find((item) => item.dataset.machine === name) as HTMLElement
const width = (element: Element | null) => (element?.firstElementChild as HTMLElement | null)?.style.width

describe('the machines section', () => {
  beforeEach(() => vi.spyOn(console, 'error').mockImplementation(() => {}))

  it('asks for the month shown and names each machine with its kind and state in Korean', async () => {
    const { server } = show()
    expect(await screen.findByRole('heading', { name: '11월 기계별 매출', level: 2 })).toBeInTheDocument()
    const call = server.calls.find((c) => c.path === '/api/v0/store/1/machines')
    expect(call?.search.get('year')).toBe('2026')
    expect(call?.search.get('month')).toBe('11')
    expect(within(await row('W1')).getByRole('heading', { name: '세탁기 1번' })).toBeInTheDocument()
    expect(within(await row('W1')).getByTestId('machine-state')).toHaveTextContent('사용 중')
    expect(within(await row('W3')).getByTestId('machine-state')).toHaveTextContent('고장 E21')
    expect(within(await row('D1')).getByTestId('machine-state')).toHaveTextContent('응답 없음')
    expect(within(await row('D1')).getByText('건조기')).toBeInTheDocument()
    expect(within(await row('D2')).getByTestId('machine-state')).toHaveTextContent('대기')
    // Never reported: no state at all.
    expect(within(await row('X9')).queryByTestId('machine-state')).toBeNull()
  })

  it("draws each machine's revenue and turns as bars proportional to the largest, labelled for screen readers", async () => {
    show()
    const w1 = await row('W1')
    const w3 = await row('W3')
    const d1 = await row('D1')
    const d2 = await row('D2')
    expect(width(within(w1).getByTestId('machine-sum-bar'))).toBe('100%')
    expect(width(within(w3).getByTestId('machine-sum-bar'))).toBe('50%')
    expect(width(within(d1).getByTestId('machine-sum-bar'))).toBe('25%')
    expect(width(within(d2).getByTestId('machine-sum-bar'))).toBe('0%')
    expect(width(within(w1).getByTestId('machine-count-bar'))).toBe('100%')
    expect(width(within(w3).getByTestId('machine-count-bar'))).toBe('50%')
    expect(within(w1).getByRole('img', { name: '세탁기 1번 11월 매출 40,000원' })).toBeInTheDocument()
    expect(within(w1).getByRole('img', { name: '세탁기 1번 11월 사용 10회' })).toBeInTheDocument()
    expect(within(w1).getByTestId('machine-sum')).toHaveTextContent('40,000원')
  })

  it("says each machine's last sale relative to now and today's revenue", async () => {
    show()
    expect(within(await row('W1')).getByText('마지막 판매 5분 전')).toBeInTheDocument()
    expect(within(await row('W3')).getByText('마지막 판매 3시간 전')).toBeInTheDocument()
    expect(within(await row('D1')).getByText('마지막 판매 없음')).toBeInTheDocument()
    expect(within(await row('W1')).getByTestId('machine-today')).toHaveTextContent('오늘 8,000원 (2건)')
    expect(within(await row('W3')).getByText('환불 1건 -4,000원')).toBeInTheDocument()
  })

  it('splits the month by payment method in shares, with the refunds and the net total, and the rest on no machine', async () => {
    show()
    const methods = await screen.findAllByTestId('method')
    // Largest first; a method without a sale is left out.
    expect(methods.map((item) => item.dataset.method)).toEqual(['card', 'cash', 'other'])
    expect(methods[0]).toHaveTextContent('카드75%60,000원')
    expect(methods[1]).toHaveTextContent('현금19%15,000원')
    expect(methods[2]).toHaveTextContent('기타6%5,000원')
    expect(width(methods[0]?.querySelector('.method-bar') ?? null)).toBe('75%')
    expect(screen.getByRole('img', { name: '카드 75%, 60,000원, 15건' })).toBeInTheDocument()
    expect(screen.getByTestId('machines-net')).toHaveTextContent('76,000원')
    expect(screen.getByTestId('machines-refunds')).toHaveTextContent('환불1건 · -4,000원')
    expect(screen.getByTestId('machines-rest')).toHaveTextContent('기계 정보 없음 6,000원')
  })

  it('shows no rest when the machines hold the whole month', async () => {
    show(owned, { ...answer, machines: [machine({ machine: 'W1', month: { sum: monthTotal, count: 3 } })] })
    expect(await row('W1')).toBeInTheDocument()
    expect(screen.queryByTestId('machines-rest')).toBeNull()
  })

  it('lets an owner rename a machine in place: the PATCH, then the list asked again', async () => {
    let body = answer
    const { server } = show(owned, answer, {
      'PATCH /api/v0/store/1/machines/W3': (call) => {
        body = {
          ...answer,
          machines: answer.machines.map((m) => (m.machine === 'W3' ? { ...m, name: '창가 세탁기' } : m)),
        }
        return json(200, call.body)
      },
      'GET /api/v0/store/1/machines': () => json(200, body),
    })
    const user = userEvent.setup()
    await user.click(within(await row('W3')).getByRole('button', { name: '‘W3’ 이름 바꾸기' }))
    const field = screen.getByLabelText('‘W3’의 새 이름 (비우면 단말기가 보낸 이름)')
    expect(field).toHaveFocus()
    await user.clear(field)
    await user.type(field, ' 창가 세탁기 ')
    await user.click(screen.getByRole('button', { name: '저장' }))
    await waitFor(() =>
      expect(
        within(screen.getAllByTestId('machine')[1] as HTMLElement).getByRole('heading'),
      ).toHaveTextContent('창가 세탁기'),
    )
    await waitFor(() =>
      expect(screen.getByRole('button', { name: '‘창가 세탁기’ 이름 바꾸기' })).toHaveFocus(),
    )
    const patch = server.calls.find((call) => call.method === 'PATCH')
    expect(patch?.body).toEqual({ name: '창가 세탁기' })
    expect(patch?.authorization).toBe('Bearer a1')
    expect(server.count('GET /api/v0/store/1/machines')).toBe(2)
  })

  it("an emptied name gives back the devices' name (null), and a refusal is said in Korean", async () => {
    const { server } = show(owned, answer, {
      'PATCH /api/v0/store/1/machines/W3': () => json(400, { message: '이름이 너무 깁니다.' }),
    })
    const user = userEvent.setup()
    await user.click(within(await row('W3')).getByRole('button', { name: '‘W3’ 이름 바꾸기' }))
    await user.clear(screen.getByLabelText('‘W3’의 새 이름 (비우면 단말기가 보낸 이름)'))
    await user.click(screen.getByRole('button', { name: '저장' }))
    expect(await screen.findByRole('alert')).toHaveTextContent('이름이 너무 깁니다.')
    expect(server.calls.find((call) => call.method === 'PATCH')?.body).toEqual({ name: null })
  })

  it('offers an owner the VAT periods and a range, and downloads tax.csv with the bearer token', async () => {
    const csv = '\uFEFF날짜,카드,현금\r\n'
    const { server } = show(owned, answer, {
      'GET /api/v0/store/1/export/tax.csv': () =>
        new Response(csv, { status: 200, headers: { 'content-type': 'text/csv; charset=utf-8' } }),
    })
    const made: Blob[] = []
    vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
      made.push(blob as Blob)
      return 'blob:tax'
    })
    vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => {})
    const clicked: string[] = []
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this.download)
    })
    const user = userEvent.setup()
    expect(await screen.findByRole('heading', { name: '부가세 신고 자료 (CSV)' })).toBeInTheDocument()
    // Now is 25 November 2026 in Korea: this year's two periods (the second up to today) and last year's.
    expect(
      within(screen.getByRole('region', { name: '부가세 신고 자료 (CSV)' }))
        .getAllByRole('button')
        .map((button) => button.textContent),
    ).toEqual([
      '2026년 2기 (7–12월)',
      '2026년 1기 (1–6월)',
      '2025년 2기 (7–12월)',
      '2025년 1기 (1–6월)',
      '기간 내려받기',
    ])
    await user.click(screen.getByRole('button', { name: '2026년 2기 (7–12월)' }))
    await waitFor(() => expect(clicked).toEqual(['역삼점_매출_2026-07-01_2026-11-25_KST.csv']))
    const call = server.calls.find((c) => c.path === '/api/v0/store/1/export/tax.csv')
    expect(call?.search.get('from')).toBe('2026-07-01')
    expect(call?.search.get('to')).toBe('2026-11-25')
    expect(call?.authorization).toBe('Bearer a1')
    // The file as the server sent it, its byte order mark included.
    expect(new Uint8Array(await (made[0] as Blob).arrayBuffer()).slice(0, 3)).toEqual(
      new Uint8Array([0xef, 0xbb, 0xbf]),
    )
    await user.clear(screen.getByLabelText('시작일'))
    await user.type(screen.getByLabelText('시작일'), '2025-03-01')
    await user.clear(screen.getByLabelText('종료일'))
    await user.type(screen.getByLabelText('종료일'), '2025-03-31')
    await user.click(screen.getByRole('button', { name: '기간 내려받기' }))
    await waitFor(() => expect(clicked).toHaveLength(2))
    const range = server.calls.filter((c) => c.path === '/api/v0/store/1/export/tax.csv').at(-1)
    expect([range?.search.get('from'), range?.search.get('to')]).toEqual(['2025-03-01', '2025-03-31'])
  })

  it('shows staff the machines but neither the rename nor the tax export', async () => {
    show({ ...owned, role: 'staff' })
    expect(await row('W1')).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: /이름 바꾸기/ })).toBeNull()
    expect(screen.queryByRole('heading', { name: '부가세 신고 자료 (CSV)' })).toBeNull()
    expect(screen.queryByRole('button', { name: /기 \(/ })).toBeNull()
  })

  it("asks again after each change of the store-year's figures, not for another year's", async () => {
    const { server, client } = show()
    await row('W1')
    const asked = () => server.count('GET /api/v0/store/1/machines')
    expect(asked()).toBe(1)
    // The year's figures as the live follower keeps them: first there, then changed.
    client.setQueryData(usageKeys.year(1, 2026), { buckets: {}, etag: null, rev: 1 })
    client.setQueryData(usageKeys.year(1, 2025), { buckets: {}, etag: null, rev: 1 })
    client.setQueryData(usageKeys.year(1, 2025), { buckets: {}, etag: null, rev: 2 })
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(asked()).toBe(1)
    client.setQueryData(usageKeys.year(1, 2026), { buckets: {}, etag: null, rev: 2 })
    await waitFor(() => expect(asked()).toBe(2))
  })
})

describe('on the sales screen', () => {
  beforeEach(() => vi.spyOn(console, 'error').mockImplementation(() => {}))

  it("comes below the charts once the figures show, with the rest against the screen's own month total", async () => {
    signedIn(owned)
    const server = fakeServer({
      'GET /api/v0/store/1/usage': (call) =>
        json(200, {
          usages:
            call.search.get('year') === '2026'
              ? [
                  { createdAt: '2026-03-01T09:15:00.000Z', amount: 40_000 },
                  { createdAt: '2026-03-02T09:15:00.000Z', amount: 36_000 },
                ]
              : [],
        }),
      'GET /api/v0/store/1/machines': () => json(200, answer),
    })
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
    render(
      <QueryClientProvider client={client}>
        <SalesPage storeId={1} period={{ year: 2026, month: 3 }} onPeriodChange={() => {}} />
      </QueryClientProvider>,
    )
    const section = await screen.findByRole('region', { name: '3월 기계별 매출' })
    // After the charts and the hours, in the figures.
    const headings = screen.getAllByRole('heading', { level: 2 }).map((heading) => heading.textContent)
    expect(headings.indexOf('3월 기계별 매출')).toBeGreaterThan(headings.indexOf('3월 요일·시간대별 매출'))
    expect(await within(section).findByTestId('machines-net')).toHaveTextContent('76,000원')
    expect(within(section).getByTestId('machines-rest')).toHaveTextContent('기계 정보 없음 6,000원')
    const asked = server.calls.find((call) => call.path === '/api/v0/store/1/machines')
    expect([asked?.search.get('year'), asked?.search.get('month')]).toEqual(['2026', '3'])
    // Not this month: no today's revenue.
    expect(within(section).queryByTestId('machine-today')).toBeNull()
  })

  it("of a store whose won amounts the owner hides: a notice and the machines' turns, no amount, no usage call (§15)", async () => {
    signedIn({ ...owned, role: 'staff', showsMoney: false })
    const count = ({ count }: { count: number }) => ({ count })
    const hidden: MachinesAnswer = {
      ...answer,
      machines: answer.machines.map((m) => ({
        ...m,
        month: count(m.month),
        today: count(m.today),
        refunds: count(m.refunds),
      })),
      methods: answer.methods.map(({ method, count }) => ({ method, count })),
      refunds: count(answer.refunds),
    }
    const server = fakeServer({ 'GET /api/v0/store/1/machines': () => json(200, hidden) })
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
    render(
      <QueryClientProvider client={client}>
        <SalesPage storeId={1} period={{ year: 2026, month: 11 }} onPeriodChange={() => {}} />
      </QueryClientProvider>,
    )
    const section = await screen.findByRole('region', { name: '11월 기계별 사용' })
    expect(within(section).getByTestId('money-hidden')).toHaveTextContent('금액을 보지 않도록 설정했습니다')
    expect(within(await row('W1')).getByText('10회')).toBeInTheDocument()
    expect(within(section).queryByTestId('machine-sum')).toBeNull()
    expect(document.body.textContent).not.toMatch(/원/)
    expect(server.calls.map((call) => call.path)).not.toContain('/api/v0/store/1/usage')
  })
})
