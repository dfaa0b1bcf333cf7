// Alerts by 알림톡 against the real server process, SOLAPI stood in on this machine
// (solapi-stand-in.ts, started by global-setup.ts): the owner chooses 알림톡 for 기계 고장 on the alerts
// screen; a washer's error, confirmed by a second heartbeat 30 s later, brings exactly one 알림톡 by the
// kind's template to the owner's own number (and no more at the minute's evaluations after); in quiet
// hours another machine's error brings none, and stays held in the list. Delivery through the real
// provider is not exercised here.
import { readFileSync } from 'node:fs'
import type { APIRequestContext, BrowserContext } from '@playwright/test'
import { expect, test } from './fixtures.ts'
import { accessToken, figuresSettled, messagesOwner, messagesStoreName, signIn } from './helpers.ts'
import { receivedMessages, solapiEnv } from './solapi-stand-in.ts'

const toOwner = () => receivedMessages().filter((message) => message.to === messagesOwner)

/** `HH:mm` in Korea time, `minutes` from now. */
const koreaClock = (minutes: number) =>
  new Date(Date.now() + 9 * 3_600_000 + minutes * 60_000).toISOString().slice(11, 16)

async function api(request: APIRequestContext, context: BrowserContext) {
  const headers = { authorization: `Bearer ${await accessToken(context)}` }
  const user = await request.get('/api/v0/user', { headers })
  const { stores } = (await user.json()) as { stores: { id: number; name: string }[] }
  const storeId = stores.find((store) => store.name === messagesStoreName)?.id ?? 0
  return {
    storeId,
    headers,
    settings: (change: Record<string, unknown>) =>
      request.put('/api/v0/alerts/settings', { headers, data: { storeId, ...change } }),
  }
}

async function pairDevice(request: APIRequestContext, headers: Record<string, string>, storeId: number) {
  const added = await request.post(`/api/v0/store/${storeId}/devices`, {
    headers,
    data: { name: '세탁실 결제기' },
  })
  expect(added.status()).toBe(201)
  const { pairingCode } = (await added.json()) as { pairingCode: string }
  const paired = await request.post('/api/v0/device/pair', { data: { code: pairingCode } })
  expect(paired.status()).toBe(200)
  return ((await paired.json()) as { key: string }).key
}

/** A machine's error reported twice, 31 s apart: confirmed (decision 185). */
async function confirmedError(request: APIRequestContext, key: string, machine: string) {
  const beat = () =>
    request.post('/api/v0/device/heartbeat', {
      headers: { authorization: `Bearer ${key}` },
      data: { pending: 0, machines: [{ machine, kind: 'washer', state: 'error', code: 'E21' }] },
    })
  expect((await beat()).status()).toBe(204)
  await new Promise((resolve) => setTimeout(resolve, 31_000))
  expect((await beat()).status()).toBe(204)
}

test('a washer’s error: exactly one 알림톡 to the owner who chose it, none in quiet hours', async ({
  page,
  context,
  request,
}) => {
  test.setTimeout(240_000)
  await signIn(page, messagesOwner)
  await figuresSettled(page)
  const { storeId, headers, settings } = await api(request, context)
  expect(storeId).toBeGreaterThan(0)
  // No quiet hours for the first part, whatever the time of the run (the default is 23:00–07:00).
  expect((await settings({ quietHours: null })).status()).toBe(200)

  await page.goto('/alerts')
  const chosen = page.waitForResponse(
    (response) => response.url().endsWith('/api/v0/alerts/settings') && response.request().method() === 'PUT',
  )
  await page.getByLabel(`${messagesStoreName} 기계 고장 받는 방법`).selectOption('kakao')
  expect((await chosen).status()).toBe(200)

  const key = await pairDevice(request, headers, storeId)
  await confirmedError(request, key, 'W1')
  await expect
    .poll(() => toOwner().length, { timeout: 60_000 })
    .toBe(1)
    .catch((error: unknown) => {
      // What the server said of its alerts and messages, for the report.
      const log = readFileSync(process.env.E2E_SERVER_LOG ?? '', 'utf8').split('\n')
      console.log(
        log
          .filter((line) => /alert|messag|solapi|error/i.test(line))
          .slice(-30)
          .join('\n'),
      )
      throw error
    })
  const sentAt = Date.now()
  const [message] = toOwner()
  expect(message?.kakaoOptions).toMatchObject({
    pfId: solapiEnv.KAKAO_PFID,
    templateId: solapiEnv.KAKAO_TEMPLATE_MACHINE_ERROR,
  })
  expect(message?.text).toContain(`${messagesStoreName} · W1 고장`)

  // Quiet hours around now: another washer's error is held, and no 알림톡 goes.
  expect((await settings({ quietHours: { start: koreaClock(-60), end: koreaClock(60) } })).status()).toBe(200)
  await confirmedError(request, key, 'W2')
  // Past a minute's evaluation after the first 알림톡, and 10 s after the second error's confirmation.
  await page.waitForTimeout(Math.max(10_000, sentAt + 65_000 - Date.now()))
  expect(toOwner()).toHaveLength(1)

  const list = await request.get('/api/v0/alerts', { headers })
  const alerts = ((await list.json()) as { alerts: { title: string; state: string; deliveries: unknown }[] })
    .alerts
  expect(alerts.find((alert) => alert.title.includes('W1'))).toMatchObject({
    state: 'sent',
    deliveries: [{ channel: 'kakao', status: 'sent' }],
  })
  expect(alerts.find((alert) => alert.title.includes('W2'))).toMatchObject({
    state: 'held',
    deliveries: [{ channel: 'kakao', status: 'pending' }],
  })
  await page.reload()
  await expect(page.getByText('알림톡 보냄')).toBeVisible()
  await expect(page.getByTestId('message-counts')).toContainText('알림톡 1건')
})
