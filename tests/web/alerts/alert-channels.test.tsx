// The alerts screen's channels (docs/product.md §12, decisions 230–235): where the server sends a kind by
// 알림톡, its channel is chosen beside its switch (push, 알림톡, both), with the SMS fallback; each alert
// in the list says how it went out by each channel; owners see the month's messages by channel.
import { screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeEach, expect, it, vi } from 'vitest'
import type { Alert, StoreAlertSettings } from '../../../contract/api.ts'
import { signedIn, startAt } from '../app-at.tsx'
import { fakeServer, json } from '../fake-server.ts'
import { alertSettings } from './settings-fixture.ts'

const stores = [{ id: 1, name: '역삼점', images: [], role: 'owner' as const }]
const settings = (channels: Partial<StoreAlertSettings['channels']> = {}) => alertSettings({}, channels)
const alert: Alert = {
  id: 7,
  storeId: 1,
  kind: 'machineError',
  title: '역삼점 · W1 고장',
  body: 'W1이(가) 14:00부터 고장 상태입니다 (E21).',
  state: 'sent',
  createdAt: '2026-03-16T05:00:00.000Z',
  sentAt: '2026-03-16T05:00:00.000Z',
  deliveries: [
    { channel: 'push', status: 'failed' },
    { channel: 'kakao', status: 'fallbackSms' },
  ],
}

beforeEach(() => vi.spyOn(console, 'error').mockImplementation(() => {}))

it('chooses 알림톡 for a kind the server sends so; tells each alert’s delivery and the month’s counts', async () => {
  signedIn(stores)
  const server = fakeServer({
    'GET /api/v0/store/1/usage': () => json(200, { usages: [] }),
    'GET /api/v0/alerts/settings': () => json(200, { stores: [settings()], kakaoKinds: ['machineError'] }),
    'GET /api/v0/alerts': () =>
      json(200, {
        alerts: [alert],
        messageCounts: [{ storeId: 1, month: '2026-03', push: 4, kakao: 2, sms: 1 }],
      }),
    'PUT /api/v0/alerts/settings': () =>
      json(200, { stores: [settings({ machineError: 'kakao' })], kakaoKinds: ['machineError'] }),
  })
  startAt('/alerts')
  const select = await screen.findByLabelText('역삼점 기계 고장 받는 방법')
  expect(select).toHaveValue('push')
  expect(screen.queryByLabelText('역삼점 판매 없음 받는 방법')).toBeNull()
  expect(screen.getByLabelText('알림톡을 받을 수 없으면 문자로 받기')).toBeChecked()
  expect(await screen.findByTestId('alert-deliveries')).toHaveTextContent(
    '푸시 보내지 못함 · 알림톡 문자로 대신 보냄',
  )
  expect(screen.getByTestId('message-counts')).toHaveTextContent(
    '역삼점 · 3월: 푸시 4건 · 알림톡 2건 · 문자 1건',
  )
  await userEvent.setup().selectOptions(select, 'kakao')
  await vi.waitFor(() =>
    expect(server.calls.find((call) => call.method === 'PUT')?.body).toEqual({
      storeId: 1,
      channels: { machineError: 'kakao' },
    }),
  )
  expect(await screen.findByLabelText('역삼점 기계 고장 받는 방법')).toHaveValue('kakao')
})

it('shows no channel choice on a server without 알림톡', async () => {
  signedIn(stores)
  fakeServer({
    'GET /api/v0/store/1/usage': () => json(200, { usages: [] }),
    'GET /api/v0/alerts/settings': () => json(200, { stores: [settings()], kakaoKinds: [] }),
    'GET /api/v0/alerts': () => json(200, { alerts: [], messageCounts: [] }),
  })
  startAt('/alerts')
  await screen.findAllByTestId('alert-settings')
  expect(screen.queryByLabelText('역삼점 기계 고장 받는 방법')).toBeNull()
  expect(screen.queryByLabelText('알림톡을 받을 수 없으면 문자로 받기')).toBeNull()
  expect(screen.queryByTestId('message-counts')).toBeNull()
})

it('tells what the provider reported of each 알림톡 it took, and one whose send was cut off (decisions 250, 251)', async () => {
  signedIn(stores)
  const kakao = (
    id: number,
    status: Alert['deliveries'][number]['status'],
    report?: 'delivered' | 'deliveredSms' | 'undelivered' | 'noReport',
  ) =>
    ({
      ...alert,
      id,
      deliveries: [{ channel: 'kakao', status, ...(report ? { report } : {}) }],
    }) as Alert
  fakeServer({
    'GET /api/v0/store/1/usage': () => json(200, { usages: [] }),
    'GET /api/v0/alerts/settings': () => json(200, { stores: [settings()], kakaoKinds: ['machineError'] }),
    'GET /api/v0/alerts': () =>
      json(200, {
        alerts: [
          kakao(1, 'sent'),
          kakao(2, 'sent', 'delivered'),
          kakao(3, 'sent', 'deliveredSms'),
          kakao(4, 'sent', 'undelivered'),
          kakao(5, 'fallbackSms', 'noReport'),
          kakao(6, 'unknown'),
        ],
        messageCounts: [],
      }),
  })
  startAt('/alerts')
  await screen.findAllByTestId('alert-deliveries')
  expect(screen.getAllByTestId('alert-deliveries').map((line) => line.textContent)).toEqual([
    '알림톡 보냄',
    '알림톡 보냄 (전달됨)',
    '알림톡 보냄 (문자로 전달됨)',
    '알림톡 보냄 (전달 안 됨)',
    '알림톡 문자로 대신 보냄 (확인 안 됨)',
    '알림톡 보냈는지 알 수 없음',
  ])
})
