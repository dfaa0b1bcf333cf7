// An accessibility audit (axe-core) of every screen and every open dropdown, against WCAG 2.2 AA: a
// screen passes with no serious or critical violation, colour contrast and target sizes included. Each
// audit prints its findings by impact, so a run shows what axe saw even when nothing fails.
import { AxeBuilder } from '@axe-core/playwright'
import type { Page, TestInfo } from '@playwright/test'
import type { Result } from 'axe-core'
import { expect, test } from './fixtures.ts'
import {
  checkForUpdate,
  deployNewVersion,
  figuresSettled,
  logMark,
  owner,
  persisted,
  readCode,
  serviceWorkerReady,
  shot,
  signIn,
  staff,
} from './helpers.ts'

const wcag22aa = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']
const build = process.env.E2E_BUILD_DIR ?? 'dist'
const impacts = ['critical', 'serious', 'moderate', 'minor'] as const

const describe = (result: Result) =>
  [
    `${result.impact} ${result.id}: ${result.help}`,
    ...result.nodes.map(
      (node) => `    ${node.target.join(' ')}  ${node.failureSummary?.replace(/\s+/g, ' ') ?? ''}`,
    ),
  ].join('\n')

/**
 * Audits the page as it is now, prints what was found by impact, and fails the test on anything serious
 * or critical (softly, so that the test's other screens are still audited and printed).
 */
async function audit(page: Page, testInfo: TestInfo, screen: string) {
  const { violations, incomplete, passes } = await new AxeBuilder({ page }).withTags(wcag22aa).analyze()
  const byImpact = impacts.map(
    (impact) =>
      `${impact} ${violations.filter((v) => v.impact === impact).reduce((n, v) => n + v.nodes.length, 0)}`,
  )
  const lines = [
    `axe [${build}] ${screen}: ${byImpact.join(', ')} (elements); ${passes.length} rules passed, ` +
      `${incomplete.length} to review by hand${incomplete.length ? ` (${incomplete.map((r) => r.id).join(', ')})` : ''}`,
    ...violations.map((violation) => `  ${describe(violation)}`),
    // What axe could not decide (e.g. text over a picture) is listed for a person to look at.
    ...incomplete.map((result) => `  to review: ${describe(result)}`),
  ]
  console.log(lines.join('\n'))
  await testInfo.attach(`axe ${screen}`, {
    body: JSON.stringify(violations, null, 2),
    contentType: 'application/json',
  })
  const blocking = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  expect.soft(blocking.map(describe), `serious or critical WCAG 2.2 AA violations on ${screen}`).toEqual([])
}

test('the login screen: idle, each button enabled, and the code field active', async ({ page }, testInfo) => {
  await page.goto('/login')
  await expect(page.getByLabel('휴대폰 번호')).toBeEnabled()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('로그인')
  await expect(page).toHaveTitle('로그인 · 빨래방 매출')
  await audit(page, testInfo, 'login')

  // Enabled buttons are held to the contrast rule (disabled ones are exempt), so each is audited too.
  await page.getByLabel('휴대폰 번호').fill(owner)
  await expect(page.getByRole('button', { name: 'get verification code' })).toBeEnabled()
  await audit(page, testInfo, 'login, number typed')

  const mark = logMark()
  await page.getByRole('button', { name: 'get verification code' }).click()
  const code = await readCode(owner, mark)
  await expect(page.getByLabel('인증번호')).toBeFocused()
  await audit(page, testInfo, 'login, code requested')

  await page.getByLabel('인증번호').fill(code)
  await expect(page.getByRole('button', { name: 'Login' })).toBeEnabled()
  await audit(page, testInfo, 'login, code typed')
})

for (const width of [360, 1280]) {
  test(`the sales screen at ${width} px, with each dropdown open`, async ({ page }, testInfo) => {
    await page.setViewportSize({ width, height: 800 })
    await signIn(page)
    await figuresSettled(page)
    const period = (await page.getByRole('button', { name: /^\d{4}년 \d{1,2}월$/ }).textContent()) ?? ''
    // A heading that names the store and the period, and charts named by their captions.
    await expect.soft(page.getByRole('heading', { level: 1 })).toHaveText(`행복빨래방 역삼점 ${period} 매출`)
    await expect.soft(page).toHaveTitle(`행복빨래방 역삼점 ${period} 매출 · 빨래방 매출`)
    await expect.soft(page.getByRole('figure', { name: '이번 달 매출' })).toBeVisible()
    await expect.soft(page.getByRole('figure', { name: '올해 매출' })).toBeVisible()
    await audit(page, testInfo, `sales ${width}px`)

    await page.getByRole('button', { name: /^매장: / }).click()
    await expect(page.getByRole('list', { name: '매장 목록' })).toBeVisible()
    await audit(page, testInfo, `sales ${width}px, store switcher open`)
    await page.keyboard.press('Escape')
    await expect(page.getByRole('list', { name: '매장 목록' })).toBeHidden()

    await page.getByRole('button', { name: period }).click()
    await expect(page.getByRole('dialog', { name: '연도와 월 선택' })).toBeVisible()
    await audit(page, testInfo, `sales ${width}px, month picker open`)
  })
}

test('the sales screen offline: the offline notice, and a period not kept on the device', async ({
  page,
  context,
}, testInfo) => {
  await signIn(page)
  await figuresSettled(page)
  const navigator = page.getByRole('button', { name: /^\d{4}년 \d{1,2}월$/ })
  const year = Number((await navigator.textContent())?.slice(0, 4))
  await serviceWorkerReady(page)
  await persisted(page, 1, year)
  await context.setOffline(true)
  await page.reload()
  await expect(page.getByText(/^오프라인 · .* 기준$/)).toBeVisible()
  await audit(page, testInfo, 'sales offline')

  // Two years back: last year is kept too (fetched for the comparisons).
  await navigator.click()
  await page.getByRole('button', { name: '이전 해' }).click()
  await page.getByRole('button', { name: '이전 해' }).click()
  await page.getByRole('button', { name: '6월', exact: true }).click()
  await expect(page.getByRole('heading', { name: '오프라인에서는 볼 수 없는 기간입니다' })).toBeVisible()
  await audit(page, testInfo, 'sales offline, period not kept')
})

test('the alerts screen at 360 and 1280 px, as staff (the menu shows the alerts only)', async ({
  page,
}, testInfo) => {
  await signIn(page, staff)
  await expect(page.getByTestId('month-total')).toBeVisible()
  await page.getByRole('button', { name: '메뉴' }).click()
  await audit(page, testInfo, 'the header menu of staff')
  await page.getByRole('link', { name: '알림' }).click()
  await expect(page.getByTestId('alert-settings')).toHaveCount(1)
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: 900 })
    await audit(page, testInfo, `the alerts screen at ${width} px`)
    // Nothing wider than the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width)
  }
})

test('the team screen at 360 and 1280 px, as an owner, with a member being changed', async ({
  page,
}, testInfo) => {
  // Three audits, each up to about 20 s on a loaded 2-core machine.
  test.setTimeout(120_000)
  await signIn(page, owner)
  // Signed in: the menu is there (the busy store's year need not have loaded).
  await expect(page.getByRole('heading', { level: 1 })).toContainText('매출')
  await page.getByRole('button', { name: '메뉴' }).click()
  await page.getByRole('link', { name: '팀 관리' }).click()
  await expect(page.getByTestId('member').first()).toBeVisible()
  await expect(page.getByTestId('team-log').or(page.getByText('아직 기록이 없습니다.'))).toBeVisible()
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: 900 })
    await audit(page, testInfo, `the team screen at ${width} px`)
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width)
  }
  await page
    .getByRole('button', { name: /’ 변경$/ })
    .first()
    .click()
  await audit(page, testInfo, 'the team screen, a member being changed')
  await page.screenshot({ path: shot('team-changing-1280.png') })
})

test('the not-found view', async ({ page }, testInfo) => {
  await page.goto('/no/such/page')
  await expect(page.getByRole('heading', { level: 1, name: '페이지를 찾을 수 없습니다' })).toBeVisible()
  await expect(page).toHaveTitle('페이지를 찾을 수 없습니다 · 빨래방 매출')
  await audit(page, testInfo, 'not found')
})

test('the update prompt', async ({ page }, testInfo) => {
  await page.goto('/login')
  await serviceWorkerReady(page)
  await page.reload()
  const restore = deployNewVersion()
  try {
    await checkForUpdate(page)
    await expect(page.getByRole('alertdialog', { name: '새 버전이 있습니다.' })).toBeVisible()
    await audit(page, testInfo, 'update prompt')
  } finally {
    restore()
  }
})

interface Focused {
  element: string
  outline: string
  /** Whatever is drawn at the element's centre, when it is not the element itself. */
  coveredBy: string | null
}

/** Presses `key` until focus comes back round, noting each element focused on the way. */
async function walkFocus(page: Page, key: 'Tab' | 'Shift+Tab') {
  const seen: Focused[] = []
  for (let step = 0; step < 40; step++) {
    await page.keyboard.press(key)
    const focused = await page.evaluate(() => {
      const element = document.activeElement
      if (!element || element === document.body) return null
      const describe = (node: Element) =>
        `${node.tagName.toLowerCase()}${node.className ? `.${String(node.className).split(' ').join('.')}` : ''} ${(
          node.getAttribute('aria-label') ??
          node.textContent ??
          ''
        )
          .trim()
          .slice(0, 20)}`
      const style = getComputedStyle(element)
      const box = element.getBoundingClientRect()
      const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2)
      return {
        element: describe(element),
        outline: `${style.outlineStyle} ${style.outlineWidth}`,
        coveredBy: top && (top === element || element.contains(top)) ? null : top ? describe(top) : 'nothing',
      }
    })
    if (!focused || focused.element === seen[0]?.element) break
    seen.push(focused)
  }
  return seen
}

test('keyboard focus on the sales screen always shows, and never stops under the sticky header', async ({
  page,
}) => {
  // Short enough that the page scrolls, so that the header sticks over it.
  await page.setViewportSize({ width: 360, height: 560 })
  await signIn(page)
  await figuresSettled(page)
  const forward = await walkFocus(page, 'Tab')
  // From the bottom back up: each control comes into view at the top edge, where the header is.
  await page.evaluate(() =>
    window.scrollTo({ top: document.documentElement.scrollHeight, behavior: 'instant' }),
  )
  const backward = await walkFocus(page, 'Shift+Tab')
  console.log(`focus order: ${forward.map((f) => f.element).join(' → ')}`)
  expect(forward.length).toBeGreaterThanOrEqual(7)
  for (const focused of [...forward, ...backward]) {
    expect.soft(focused, focused.element).toEqual({ ...focused, outline: 'solid 2px', coveredBy: null })
  }
})
