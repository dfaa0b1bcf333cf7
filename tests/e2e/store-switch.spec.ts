// One store's or year's figures are never shown under another store's name or another period: not
// while the new ones load, and not when they cannot be fetched.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Page } from '@playwright/test'
import { runServer } from '../../scripts/run-server.ts'
import { expect, test } from './fixtures.ts'
import { figuresSettled, navigatorLabel, recordDialogs, serverSums, signIn, won } from './helpers.ts'

const stores = { first: '행복빨래방 역삼점', third: '하얀 셀프빨래방 대치점' }

/**
 * Records, on every change of the page, which store name, period and year total are on screen
 * together: a figure shown for a moment under the wrong name is caught too.
 */
async function watchWhatIsShown(page: Page) {
  await page.evaluate(() => {
    const seen: string[] = []
    ;(window as unknown as { seen: string[] }).seen = seen
    const record = () => {
      const name = document.querySelector('.store-current .store-name')?.textContent ?? ''
      const label = Array.from(document.querySelectorAll('button'))
        .map((button) => button.textContent ?? '')
        .find((text) => /^\d{4}년 \d{1,2}월$/.test(text))
      const total = document.querySelector('[data-testid="year-total"]')?.textContent ?? ''
      const entry = `${name}|${label ?? ''}|${total}`
      if (seen.at(-1) !== entry) seen.push(entry)
    }
    record()
    new MutationObserver(record).observe(document.body, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
    })
  })
  return async () => {
    const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen)
    return seen.map((entry) => {
      const [name = '', label = '', total = ''] = entry.split('|')
      return { name, year: Number(label.slice(0, 4)), total }
    })
  }
}

async function switchStore(page: Page, name: string) {
  await page.getByRole('button', { name: /매장 바꾸기/ }).click()
  await page.getByRole('button', { name, exact: true }).click()
}

test("switching store or year online shows a loading state, never the previous store's or year's figures", async ({
  page,
  context,
  request,
}) => {
  await signIn(page)
  await figuresSettled(page)
  const year = Number((await navigatorLabel(page).textContent())?.slice(0, 4))
  const shown = await watchWhatIsShown(page)

  await switchStore(page, stores.third)
  await expect(page.getByRole('button', { name: `매장: ${stores.third} (매장 바꾸기)` })).toBeVisible()
  await figuresSettled(page)
  await navigatorLabel(page).click()
  await page.getByRole('button', { name: '이전 해' }).click()
  await page.getByRole('button', { name: '6월', exact: true }).click()
  await expect(navigatorLabel(page)).toHaveText(`${year - 1}년 6월`)
  await figuresSettled(page)

  const truth = {
    [`${stores.first}|${year}`]: won((await serverSums(request, context, 1, year)).year),
    [`${stores.third}|${year}`]: won((await serverSums(request, context, 3, year)).year),
    [`${stores.third}|${year - 1}`]: won((await serverSums(request, context, 3, year - 1)).year),
  }
  expect(truth[`${stores.first}|${year}`]).not.toBe(truth[`${stores.third}|${year}`])
  const wrong = (await shown()).filter(
    ({ name, year: shownYear, total }) => total !== '' && truth[`${name}|${shownYear}`] !== total,
  )
  expect(wrong).toEqual([])
})

/** Runs an admin command on the database in `dataDir` (before any server has it open). */
function admin(dataDir: string, ...args: string[]) {
  execFileSync(process.execPath, ['--import', 'tsx', 'server/admin.ts', ...args], {
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', NODE_ENV: 'test' },
    stdio: 'pipe',
  })
}

test("switching store while the server is unreachable never shows the previous store's figures under the new name", async ({
  page,
}) => {
  test.setTimeout(180_000)
  const webDir = process.env.E2E_WEB_DIR
  if (!webDir) throw new Error('E2E_WEB_DIR is not set')
  // A server of this test's own, so that it can really go away; with two small stores rather than
  // the demo data, which takes long to load.
  const dataDir = mkdtempSync(path.join(tmpdir(), 'laundry-unreachable-'))
  const phone = '01055556666'
  const names = ['가나 빨래방', '다라 빨래방']
  const year = new Date().getUTCFullYear()
  const csv = path.join(dataDir, 'sales.csv')
  writeFileSync(csv, `createdAt,amount\n${year}-01-05T03:00:00Z,12340\n${year}-01-06T03:00:00Z,4000\n`)
  admin(dataDir, 'add-user', phone, '최점주')
  for (const name of names) admin(dataDir, 'add-store', name)
  admin(dataDir, 'grant', phone, '1', '--role', 'owner')
  admin(dataDir, 'grant', phone, '2', '--role', 'owner')
  admin(dataDir, 'import', '1', csv)
  const server = await runServer({ dataDir, webDir, env: { SEED_DEMO: '0' } })
  try {
    recordDialogs(page)
    await page.goto(`${server.url}/login`)
    await page.getByLabel('휴대폰 번호').fill(phone)
    const since = server.output().length
    await page.getByRole('button', { name: 'get verification code' }).click()
    await page.getByLabel('인증번호').fill(await server.smsCode(phone, since))
    await page.getByRole('button', { name: 'Login' }).click()
    await figuresSettled(page)
    await expect(page.getByTestId('year-total')).toHaveText('16,340원')
    const shown = await watchWhatIsShown(page)

    await server.stop()
    await switchStore(page, names[1] ?? '')
    await expect(page.getByRole('button', { name: `매장: ${names[1]} (매장 바꾸기)` })).toBeVisible()
    // Nothing of that store was ever fetched: an honest state, no figures.
    await expect(
      page.getByRole('heading', {
        name: /오프라인에서는 볼 수 없는 기간입니다|이 매장의 \d{4}년 매출을 불러오지 못했습니다/,
      }),
    ).toBeVisible()
    await expect(page.getByTestId('year-total')).toBeHidden()
    const underNewName = (await shown()).filter(({ name, total }) => name === names[1] && total !== '')
    expect(underNewName).toEqual([])
  } finally {
    await server.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
})

test("offline, switching to a store with nothing kept shows it is not available, never the previous store's figures", async ({
  page,
  context,
}) => {
  await signIn(page)
  await figuresSettled(page)
  const firstTotal = (await page.getByTestId('year-total').textContent()) ?? ''
  const shown = await watchWhatIsShown(page)
  await context.setOffline(true)
  await switchStore(page, stores.third)
  await expect(page.getByRole('heading', { name: '오프라인에서는 볼 수 없는 기간입니다' })).toBeVisible()
  await expect(page.getByTestId('year-total')).toBeHidden()
  // Back to the first store: its own figures, as they were.
  await switchStore(page, stores.first)
  await expect(page.getByTestId('year-total')).toHaveText(firstTotal)
  const underOtherName = (await shown()).filter(({ name, total }) => name !== stores.first && total !== '')
  expect(underOtherName).toEqual([])
})

test("on a phone the header's 전체 매장 opens every store at a glance, and a row brings the sales back", async ({
  page,
}) => {
  await page.setViewportSize({ width: 360, height: 800 })
  await signIn(page)
  await figuresSettled(page)
  await page.locator('header').getByRole('link', { name: '전체 매장' }).click()
  await expect(page).toHaveURL(/\/stores$/)
  await expect(page.getByRole('heading', { level: 1, name: '전체 매장' })).toBeVisible()
  await expect(page.locator('header').getByRole('link', { name: '전체 매장' })).toHaveAttribute(
    'aria-current',
    'page',
  )
  await page.getByTestId('store-row-3').click()
  await expect(page.getByRole('button', { name: `매장: ${stores.third} (매장 바꾸기)` })).toBeVisible()
  await figuresSettled(page)
})
