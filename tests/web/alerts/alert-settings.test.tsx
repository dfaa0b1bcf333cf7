// The alerts screen's device outage setting (docs/product.md §12, decision 180): beside the kind's switch,
// how many minutes a store's devices are unheard before the push (5–30, 10 by default), per store;
// the kind's meaning says the in-app 3 minutes and the chosen push delay.
import { screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeEach, expect, it, vi } from 'vitest'
import type { StoreAlertSettings } from '../../../contract/api.ts'
import { signedIn, startAt } from '../app-at.tsx'
import { fakeServer, json } from '../fake-server.ts'
import { alertSettings } from './settings-fixture.ts'

const stores = [{ id: 1, name: '역삼점', images: [], role: 'owner' as const }]
const settings = (fields: Partial<StoreAlertSettings> = {}) => alertSettings(fields)

beforeEach(() => vi.spyOn(console, 'error').mockImplementation(() => {}))

it('chooses after how many minutes the devices are pushed as offline, per store', async () => {
  signedIn(stores)
  const server = fakeServer({
    'GET /api/v0/store/1/usage': () => json(200, { usages: [] }),
    'GET /api/v0/alerts/settings': () => json(200, { stores: [settings()] }),
    'GET /api/v0/alerts': () => json(200, { alerts: [] }),
    'PUT /api/v0/alerts/settings': (call) =>
      json(200, { stores: [settings(call.body as Partial<StoreAlertSettings>)] }),
  })
  startAt('/alerts')
  const select = await screen.findByLabelText('역삼점 단말기 연결 끊김 알림까지')
  expect(select).toHaveValue('10')
  expect([...(select as HTMLSelectElement).options].map((option) => option.textContent)).toEqual([
    '5분',
    '10분 (기본)',
    '15분',
    '20분',
    '30분',
  ])
  expect(screen.getByText(/정한 시간\(기본 10분\) 넘게 응답하지 않으면/)).toBeInTheDocument()
  expect(screen.queryByText(/3분 넘게/)).toBeNull()
  await userEvent.setup().selectOptions(select, '5')
  await vi.waitFor(() =>
    expect(server.calls.find((call) => call.method === 'PUT')?.body).toEqual({
      storeId: 1,
      deviceOfflineMinutes: 5,
    }),
  )
  expect(await screen.findByLabelText('역삼점 단말기 연결 끊김 알림까지')).toHaveValue('5')
})
