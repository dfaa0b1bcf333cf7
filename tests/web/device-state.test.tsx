// The devices screen's rules (docs/product.md decision 73) and the screen in the app's real route
// tree, with the API faked at the network edge: owners see the devices in the header's menu and the
// screen; staff see only the alerts there (decision 96), and the screen tells them it is for owners.
import { act, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { Device } from '../../contract/api.ts'
import { deviceState, nextStateChange, skewText } from '../../src/features/devices/device-state.ts'
import { signedIn, startAt } from './app-at.tsx'
import { fakeServer, json } from './fake-server.ts'

const now = Date.parse('2026-11-25T09:00:00.000Z')
const device = (fields: Partial<Device>): Device => ({
  id: 1,
  name: '카운터 결제기',
  createdAt: '2026-11-25T08:00:00.000Z',
  pairedAt: '2026-11-25T08:01:00.000Z',
  lastSeenAt: '2026-11-25T08:59:00.000Z',
  lastSaleAt: null,
  pending: 0,
  skewMs: 0,
  revokedAt: null,
  terminal: null,
  terminalSince: null,
  machines: [],
  ...fields,
})

describe("a device's state", () => {
  it('연결됨 within 3 heartbeats of 60 s, 연결 끊김 after, 해제됨 once revoked, 연결 대기 before pairing', () => {
    expect(deviceState(device({ lastSeenAt: '2026-11-25T08:57:00.000Z' }), now)).toBe('연결됨')
    expect(deviceState(device({ lastSeenAt: '2026-11-25T08:56:59.000Z' }), now)).toBe('연결 끊김')
    expect(deviceState(device({ lastSeenAt: null }), now)).toBe('연결 끊김')
    expect(deviceState(device({ revokedAt: '2026-11-25T08:59:30.000Z' }), now)).toBe('해제됨')
    expect(deviceState(device({ pairedAt: null, lastSeenAt: null }), now)).toBe('연결 대기')
  })
  it('its clock skew in seconds (minutes past a minute)', () => {
    expect(skewText(null)).toBe('—')
    expect(skewText(1234)).toBe('+1.2초')
    expect(skewText(-400)).toBe('-0.4초')
    expect(skewText(30)).toBe('0초')
    expect(skewText(90_000)).toBe('+1.5분')
  })
})

const stores = [
  { id: 1, name: '역삼점', images: [], role: 'owner' as const },
  { id: 2, name: '선릉점', images: [], role: 'owner' as const },
]

describe('the devices screen', () => {
  beforeEach(() => vi.spyOn(console, 'error').mockImplementation(() => {}))

  it("an owner opens it from the header's menu, adds a device and sees its pairing code", async () => {
    signedIn(stores)
    const server = fakeServer({
      'GET /api/v0/store/1/usage': () => json(200, { usages: [] }),
      'GET /api/v0/store/1/devices': () => json(200, { devices: [device({})] }),
      'POST /api/v0/store/1/devices': () =>
        json(201, {
          id: 2,
          name: '키오스크',
          pairingCode: 'ABCDE-12345',
          expiresAt: '2026-11-25T09:10:00.000Z',
        }),
    })
    startAt('/')
    const user = userEvent.setup()
    await user.click(await screen.findByRole('button', { name: '메뉴' }))
    // The dropdown's own focus lands on its first link.
    expect(screen.getByRole('link', { name: '단말기 관리' })).toHaveFocus()
    await user.click(screen.getByRole('link', { name: '단말기 관리' }))
    expect(await screen.findByRole('heading', { name: '단말기 관리', level: 1 })).toBeInTheDocument()
    const item = await screen.findByTestId('device')
    expect(within(item).getByText('카운터 결제기')).toBeInTheDocument()
    await user.type(screen.getByLabelText('단말기 이름'), '키오스크')
    await user.click(screen.getByRole('button', { name: '추가' }))
    expect(await screen.findByTestId('pairing-code')).toHaveTextContent('ABCDE-12345')
    expect(server.calls.find((call) => call.method === 'POST')?.body).toEqual({ name: '키오스크' })
  })

  it('staff see only the alerts in the menu, and the screen tells them only owners manage devices', async () => {
    signedIn([{ id: 2, name: '선릉점', images: [], role: 'staff' }])
    const server = fakeServer({ 'GET /api/v0/store/2/usage': () => json(200, { usages: [] }) })
    startAt('/devices?store=2')
    expect(await screen.findByText('단말기는 매장 사장님만 관리할 수 있습니다.')).toBeInTheDocument()
    await userEvent.setup().click(screen.getByRole('button', { name: '메뉴' }))
    expect(screen.getByRole('link', { name: '알림' })).toHaveFocus()
    expect(screen.queryByRole('link', { name: '단말기 관리' })).not.toBeInTheDocument()
    expect(server.calls.filter((call) => call.path.includes('/devices'))).toEqual([])
  })

  it('an open screen shows a device offline the moment it missed 3 heartbeats, not at its next minute (a fake clock)', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true, now: now })
    try {
      signedIn(stores)
      fakeServer({
        'GET /api/v0/store/1/usage': () => json(200, { usages: [] }),
        'GET /api/v0/store/1/devices': () =>
          json(200, { devices: [device({ lastSeenAt: '2026-11-25T08:57:10.000Z' })] }),
      })
      startAt('/devices?store=1')
      const item = await screen.findByTestId('device')
      expect(within(item).getByText('연결됨')).toBeInTheDocument()
      // 3 minutes after its last heartbeat, 10 s after the screen opened (its minute's tick is 50 s away).
      await act(() => vi.advanceTimersByTimeAsync(10_001))
      expect(within(item).getByText('연결 끊김')).toBeInTheDocument()
    } finally {
      vi.useRealTimers()
    }
  })
})

it('the next instant a listed device turns offline by itself', () => {
  expect(nextStateChange([], now)).toBeNull()
  expect(
    nextStateChange(
      [
        device({ lastSeenAt: '2026-11-25T08:59:00.000Z' }),
        device({ lastSeenAt: '2026-11-25T08:58:00.000Z' }),
        device({ lastSeenAt: '2026-11-25T08:50:00.000Z' }), // offline already
        device({ lastSeenAt: '2026-11-25T08:58:30.000Z', revokedAt: '2026-11-25T08:59:00.000Z' }),
      ],
      now,
    ),
  ).toBe(Date.parse('2026-11-25T09:01:00.001Z'))
})
