// The owner's team (docs/product.md §15), as two people on two devices: the owner invites a new number
// to two of their stores from the team screen; that person signs in with the console code and sees the
// store; the owner removes them from it (the confirm says what they lose), and the screen they have open
// returns to the store list with a Korean notice, the store's kept figures forgotten.
import { expect, test } from './fixtures.ts'
import { persistedCache, recordDialogs, shot, signIn } from './helpers.ts'

/** Not a demo account: a number no one knows until the owner invites it. */
const invitee = '01066667777'
const stores = { 2: '뽀송 코인세탁 선릉점', 3: '하얀 셀프빨래방 대치점' } as const

test('the owner invites a number, it signs in and sees the store; removed, its screen returns to the store list', async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000)
  const dialogs = recordDialogs(page)
  await signIn(page)
  await expect(page.getByTestId('month-total')).toBeVisible()
  await page.getByRole('button', { name: '메뉴' }).click()
  await page.getByRole('link', { name: '팀 관리' }).click()
  await expect(page.getByRole('heading', { name: '팀 관리', level: 1 })).toBeVisible()
  for (const id of [3, 2] as const) {
    await page.getByLabel('관리할 매장').selectOption({ label: stores[id] })
    await expect(page).toHaveURL(new RegExp(`/team\\?store=${id}$`))
    await page.getByLabel('휴대폰 번호').fill('010-6666-7777')
    await page.getByLabel('이름 (선택)').fill('한알바')
    await page.getByRole('button', { name: '초대', exact: true }).click()
    await expect(page.getByRole('status')).toContainText('*******7777(직원)에게 초대 문자를 보냈습니다.')
    await expect(page.getByTestId('invite')).toContainText('*******7777')
    await expect(page.getByTestId('invite')).toContainText('까지')
  }
  await page.setViewportSize({ width: 360, height: 800 })
  await page.getByRole('heading', { name: '대기 중인 초대' }).scrollIntoViewIfNeeded()
  await page.screenshot({ path: shot('team-invited-360.png') })
  await page.setViewportSize({ width: 1280, height: 720 })

  // The invited person, on their own device.
  const device = await browser.newContext({ baseURL, locale: 'ko-KR', timezoneId: 'Asia/Seoul' })
  try {
    const theirs = await device.newPage()
    await signIn(theirs, invitee)
    await expect(theirs.getByRole('heading', { level: 1 })).toContainText('매출')
    await theirs.goto('/?store=3')
    await expect(theirs.getByRole('heading', { level: 1 })).toContainText(stores[3])
    // A year of the store's sales, on a loaded machine.
    await expect(theirs.getByTestId('month-total')).toBeVisible({ timeout: 30_000 })
    await expect
      .poll(async () =>
        (await persistedCache(theirs))?.clientState.queries.some((query) => query.queryKey[1] === 3),
      )
      .toBe(true)

    // The owner sees them join, and removes them from the store.
    await page.getByLabel('관리할 매장').selectOption({ label: stores[3] })
    const member = page.getByTestId('member').filter({ hasText: '한알바' })
    await expect(member).toContainText('직원')
    await expect(member).toContainText('판매 없음, 단말기 연결 끊김')
    await expect(page.getByTestId('team-log')).toContainText('합류')
    await page.getByRole('button', { name: '‘한알바’ 내보내기' }).click()
    await expect(member).toHaveCount(0)
    expect(dialogs.at(-1)).toContain(`‘한알바’ 님을 ${stores[3]} 팀에서 내보낼까요?`)
    expect(dialogs.at(-1)).toContain('매출 금액')

    // Their open screen follows: the store list, a notice, the store's kept figures gone.
    await expect(theirs).toHaveURL(/\/stores$/, { timeout: 20_000 })
    await expect(theirs.getByRole('alert')).toContainText(
      `‘${stores[3]}’에서 제외되어 더 이상 볼 수 없습니다.`,
    )
    await expect(theirs.getByText(stores[2]).first()).toBeVisible()
    await expect
      .poll(async () =>
        (await persistedCache(theirs))?.clientState.queries.some((query) => query.queryKey[1] === 3),
      )
      .toBe(false)
    for (const width of [360, 1280]) {
      await theirs.setViewportSize({ width, height: 800 })
      await theirs.screenshot({ path: shot(`team-removed-${width}.png`) })
      await page.setViewportSize({ width, height: 900 })
      await page.screenshot({ path: shot(`team-${width}.png`), fullPage: true })
    }
  } finally {
    await device.close()
  }
})
