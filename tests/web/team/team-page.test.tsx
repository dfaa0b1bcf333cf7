// The owner's team screen through the app's routes (docs/product.md §15): what it shows of each member
// (the alerts they have on included), the removal's confirm naming what the person loses, an invite as
// typed, and the message a user who does not own the address's store gets.
import { act, fireEvent, screen, within } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { MembersAnswer, TeamLogAnswer } from '../../../contract/team.ts'
import { removalQuestion } from '../../../src/features/team/team-text.ts'
import { page } from '../../../src/lib/page.ts'
import { signedIn, startAt } from '../app-at.tsx'
import { fakeServer, json } from '../fake-server.ts'

const stores = [
  { id: 1, name: '역삼점', images: [], role: 'owner' as const },
  { id: 2, name: '선릉점', images: [], role: 'staff' as const },
]

const members: MembersAnswer = {
  members: [
    {
      userId: 1,
      phone: '*******5678',
      name: '김사장',
      role: 'owner',
      showsMoney: true,
      invitedAt: null,
      joinedAt: '2026-01-01T00:00:00.000Z',
      lastSeenAt: '2026-03-15T03:00:00.000Z',
      alerts: [
        'quiet',
        'deviceOffline',
        'machineError',
        'machineSilent',
        'paymentTerminal',
        'morningSummary',
      ],
    },
    {
      userId: 7,
      phone: '*******8888',
      name: '최알바',
      role: 'staff',
      showsMoney: false,
      invitedAt: '2026-03-01T00:00:00.000Z',
      joinedAt: '2026-03-02T00:00:00.000Z',
      lastSeenAt: null,
      alerts: ['machineError'],
    },
  ],
  invites: [{ id: 31, phone: '*******1111', role: 'manager', expiresAt: '2026-03-22T03:00:00.000Z' }],
}
const log: TeamLogAnswer = {
  entries: [
    {
      at: '2026-03-02T00:00:00.000Z',
      action: 'joined',
      by: null,
      who: '최알바',
      phone: '*******8888',
      role: 'staff',
      showsMoney: false,
    },
  ],
}

const server = () =>
  fakeServer({
    'GET /api/v0/store/1/members': () => json(200, members),
    'GET /api/v0/store/1/members/log': () => json(200, log),
    'DELETE /api/v0/store/1/members/7': () => new Response(null, { status: 204 }),
    'POST /api/v0/store/1/invites': () =>
      json(201, { id: 32, phone: '*******2222', role: 'staff', expiresAt: '2026-03-22T03:00:00.000Z' }),
  })

beforeEach(() => {
  vi.spyOn(console, 'error').mockImplementation(() => {})
})

describe('the team screen', () => {
  it('shows each member with role, money, last seen and the alerts they have on; the invites and the log', async () => {
    signedIn(stores)
    server()
    startAt('/team?store=1')
    expect(await screen.findByRole('heading', { level: 1, name: '팀 관리' })).toBeInTheDocument()
    const [owner, staff] = (await screen.findAllByTestId('member')) as [HTMLElement, HTMLElement]
    expect(owner).toHaveTextContent('김사장주인')
    expect(owner).toHaveTextContent(
      '판매 없음, 단말기 연결 끊김, 기계 고장, 기계 판매 없음, 카드 단말기 이상, 아침 요약',
    )
    expect(staff).toHaveTextContent('최알바직원')
    expect(staff).toHaveTextContent('매출 금액숨김')
    expect(staff).toHaveTextContent('마지막 접속—')
    expect(staff).toHaveTextContent('받는 알림기계 고장')
    expect(within(staff).getByText('*******8888')).toHaveAttribute('aria-hidden', 'true')
    expect(within(staff).getByText('끝자리 8888')).toHaveClass('visually-hidden')
    expect(screen.getByTestId('invite')).toHaveTextContent('점장')
    expect(await screen.findByTestId('team-log')).toHaveTextContent(
      '합류최알바 (직원, 금액 숨김)초대받은 번호로 로그인',
    )
  })

  it('removes a member only after a confirm that names what they lose', async () => {
    signedIn(stores)
    const calls = server()
    const confirm = vi.spyOn(page, 'confirm').mockReturnValueOnce(false).mockReturnValueOnce(true)
    startAt('/team?store=1')
    const remove = await screen.findByRole('button', { name: '‘최알바’ 내보내기' })
    fireEvent.click(remove)
    expect(confirm).toHaveBeenLastCalledWith(removalQuestion(members.members[1] as never, '역삼점'))
    expect(confirm.mock.lastCall?.[0]).toContain('기계·단말기 상태, 알림')
    expect(confirm.mock.lastCall?.[0]).not.toContain('매출 금액')
    expect(calls.count('DELETE /api/v0/store/1/members/7')).toBe(0)
    const asked = calls.count('GET /api/v0/store/1/members')
    await act(async () => fireEvent.click(remove))
    await vi.waitFor(() => expect(calls.count('DELETE /api/v0/store/1/members/7')).toBe(1))
    // The list is asked again after the removal.
    await vi.waitFor(() => expect(calls.count('GET /api/v0/store/1/members')).toBe(asked + 1))
  })

  it('invites the number as typed, with the role and money setting', async () => {
    signedIn(stores)
    const calls = server()
    startAt('/team?store=1')
    const invite = await screen.findByRole('button', { name: '초대' })
    expect(invite).toBeDisabled()
    fireEvent.change(screen.getByLabelText('휴대폰 번호'), { target: { value: '010-2222-2222' } })
    fireEvent.change(screen.getByLabelText('이름 (선택)'), { target: { value: ' 박알바 ' } })
    fireEvent.click(screen.getByLabelText('매출 금액 보기'))
    await act(async () => fireEvent.click(invite))
    expect(await screen.findByRole('status')).toHaveTextContent(
      '*******2222(직원)에게 초대 문자를 보냈습니다.',
    )
    expect(calls.calls.find((call) => call.method === 'POST')?.body).toEqual({
      phone: '010-2222-2222',
      role: 'staff',
      name: '박알바',
      showsMoney: false,
    })
  })

  it('tells a user at a store they do not own that only its owner runs its team, and asks nothing', async () => {
    signedIn(stores)
    const calls = server()
    startAt('/team?store=2')
    expect(await screen.findByText('팀은 매장 주인만 관리할 수 있습니다.')).toBeInTheDocument()
    expect(screen.getByRole('link', { name: '내 매장의 팀 보기' })).toHaveAttribute('href', '/team')
    expect(calls.calls.filter((call) => call.path.includes('/members'))).toEqual([])
  })
})
