// The owner pairs a device on the devices screen, the reference device (npm run device) posts a sale,
// the sales screen shows it; the owner revokes the device and its next post is refused. The sale is
// dated 2003, a year the demo data leaves empty, so no other spec's figures move.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { expect, test } from './fixtures.ts'
import { recordDialogs, shot, signIn } from './helpers.ts'

/** Runs the reference device; resolves to its exit code and output. */
function device(args: string[], input = '') {
  const child = spawn(process.execPath, ['--import', 'tsx', 'device/main.ts', ...args], { stdio: 'pipe' })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stdin.end(input)
  return new Promise<{ code: number | null; output: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, output })),
  )
}

test('the owner pairs a device, its sale shows, and once revoked it is refused', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(90_000)
  const dir = mkdtempSync(path.join(tmpdir(), 'e2e-device-'))
  try {
    await signIn(page)
    await expect(page.getByTestId('month-total')).toBeVisible()
    await page.getByRole('button', { name: '메뉴' }).click()
    await expect(page.getByRole('link', { name: '단말기 관리' })).toBeFocused()
    await page.getByRole('link', { name: '단말기 관리' }).click()
    await expect(page.getByRole('heading', { name: '단말기 관리', level: 1 })).toBeVisible()
    await page.getByLabel('관리할 매장').selectOption({ label: '하얀 셀프빨래방 대치점' })
    await expect(page).toHaveURL(/\/devices\?store=3$/)

    await page.getByLabel('단말기 이름').fill('카운터 결제기')
    await page.getByRole('button', { name: '추가' }).click()
    const code = (await page.getByTestId('pairing-code').textContent())?.trim() ?? ''
    expect(code).toMatch(/^[0-9A-Z]{5}-[0-9A-Z]{5}$/)
    await expect(page.locator('.pairing')).toBeFocused()
    await expect(page.getByTestId('device')).toContainText('연결 대기')

    const paired = await device(['pair', code, '--server', baseURL ?? '', '--dir', dir])
    expect(paired.code, paired.output).toBe(0)
    const sale = JSON.stringify({ id: 'e2e-1', createdAt: '2003-05-10T10:00:00+09:00', amount: 12340 })
    const posted = await device(['run', '--dir', dir, '--exit-when-empty'], `${sale}\n`)
    expect(posted.code, posted.output).toBe(0)
    expect(posted.output).toContain('taken e2e-1')

    // The list shows what the device said (after its next refresh; a reload here).
    await page.reload()
    const item = page.getByTestId('device')
    await expect(item).toContainText('연결됨')
    await expect(item).toContainText('5월 10일 10:00')
    for (const width of [360, 1280]) {
      await page.setViewportSize({ width, height: 800 })
      await page.waitForTimeout(200)
      await page.screenshot({ path: shot(`devices-${width}.png`), fullPage: true })
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
      expect(overflow).toBeLessThanOrEqual(0)
    }

    await page.goto('/?store=3&year=2003&month=5')
    await expect(page.getByTestId('month-total')).toHaveText('12,340원')

    await page.goto('/devices?store=3')
    const dialogs = recordDialogs(page)
    await page.getByRole('button', { name: '‘카운터 결제기’ 해제' }).click()
    await expect(page.getByTestId('device')).toContainText('해제됨')
    expect(dialogs[0]).toContain('해제할까요?')
    const refused = await device(
      ['run', '--dir', dir, '--exit-when-empty'],
      `${JSON.stringify({ id: 'e2e-2', createdAt: '2003-05-11T10:00:00+09:00', amount: 1000 })}\n`,
    )
    expect(refused.code, refused.output).toBe(2)
    expect(refused.output).toContain('401')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
