// The devices screen's machines and terminal (docs/product.md §14): per device, the machines it reports
// with their states and its payment terminal's state, when the answer has them (an older server's has
// neither, and nothing is shown).
import { screen, within } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { machineStates } from '../../domain/machines.ts'
import {
  stateText as devicesStateText,
  type ReportingDevice,
  terminalText,
} from '../../src/features/devices/device-machines.tsx'
import { stateText as salesStateText } from '../../src/features/sales/machines/machine-state.ts'
import { signedIn, startAt } from './app-at.tsx'
import { fakeServer, json } from './fake-server.ts'

const device = (fields: Partial<ReportingDevice>) =>
  ({
    id: 1,
    name: '카운터 결제기',
    createdAt: '2026-11-25T08:00:00.000Z',
    pairedAt: '2026-11-25T08:01:00.000Z',
    lastSeenAt: '2026-11-25T08:59:00.000Z',
    lastSaleAt: null,
    pending: 0,
    skewMs: 0,
    revokedAt: null,
    ...fields,
  }) as ReportingDevice

describe("a device's terminal", () => {
  it('is 정상, or 오류 since when, or unsaid', () => {
    expect(terminalText(device({ terminal: 'ok', terminalSince: '2026-11-25T08:00:00.000Z' }))).toBe(
      '단말기 정상',
    )
    expect(terminalText(device({ terminal: 'down', terminalSince: '2026-11-25T08:40:00.000Z' }))).toMatch(
      /^단말기 오류 · 11월 25일 \d\d:40부터$/,
    )
    expect(terminalText(device({ terminal: 'down', terminalSince: null }))).toBe('단말기 오류')
    expect(terminalText(device({ terminal: null }))).toBeNull()
    expect(terminalText(device({}))).toBeNull()
  })
})

describe('the devices screen', () => {
  beforeEach(() => vi.spyOn(console, 'error').mockImplementation(() => {}))

  it("shows each device's machines with their states and its terminal; nothing of them from an older server", async () => {
    signedIn([{ id: 1, name: '역삼점', images: [], role: 'owner' }])
    fakeServer({
      'GET /api/v0/store/1/usage': () => json(200, { usages: [] }),
      'GET /api/v0/store/1/devices': () =>
        json(200, {
          devices: [
            device({
              id: 1,
              name: '세탁실 결제기',
              terminal: 'down',
              terminalSince: '2026-11-25T08:40:00.000Z',
              machines: [
                { machine: 'W1', state: 'running' },
                { machine: 'W3', state: 'error' },
                { machine: 'D1', state: 'offline' },
                { machine: 'D2', state: null },
              ],
            }),
            device({ id: 2, name: '키오스크', terminal: 'ok', terminalSince: null, machines: [] }),
            // An older server: neither field.
            device({ id: 3, name: '옛 단말기' }),
          ],
        }),
    })
    startAt('/devices?store=1')
    const items = await screen.findAllByTestId('device')
    const [first, second, third] = items as [HTMLElement, HTMLElement, HTMLElement]
    expect(within(first).getByTestId('device-terminal')).toHaveTextContent(
      /^단말기 오류 · 11월 25일 \d\d:40부터$/,
    )
    const machines = within(first).getByRole('list', { name: '‘세탁실 결제기’의 기계' })
    expect(
      within(machines)
        .getAllByTestId('device-machine')
        .map((item) => item.textContent),
    ).toEqual(['W1 사용 중', 'W3 고장', 'D1 응답 없음', 'D2 상태 모름'])
    expect(within(second).getByTestId('device-terminal')).toHaveTextContent('단말기 정상')
    expect(within(second).queryByRole('list', { name: /의 기계$/ })).toBeNull()
    expect(within(third).queryByTestId('device-terminal')).toBeNull()
    expect(within(third).queryByTestId('device-machine')).toBeNull()
  })
})

describe("a machine's state", () => {
  it('is said on the devices screen in the words of the sales screen', () => {
    for (const state of [...machineStates, null])
      for (const code of ['E21', null])
        expect(devicesStateText({ state, code })).toBe(salesStateText({ state, code }))
  })
})
