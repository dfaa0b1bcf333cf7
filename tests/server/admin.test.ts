import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import { afterAll, describe, expect, it } from 'vitest'
import { runAdmin } from '../../server/admin.ts'
import { addStore, addUser, listStores, renameGuessablePictures } from '../../server/db/accounts.ts'
import { queryRows } from '../../server/db/client.ts'
import { type FailedOutcome, recordMessageFailure } from '../../server/messages/failures.ts'
import { bearer, capturedSms, sharedTestApp, signIn } from './test-app.ts'

const owner = '01012345678'
const sms = capturedSms()
const current = sharedTestApp({ sms })
const dir = mkdtempSync(path.join(tmpdir(), 'laundry-admin-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function admin(...argv: string[]) {
  const lines: string[] = []
  const code = await runAdmin(argv, {
    db: current.app.db,
    imageDir: path.join(dir, 'images'),
    print: (l) => lines.push(l),
  })
  return { code, output: lines.join('\n') }
}

function csvFile(name: string, text: string) {
  const file = path.join(dir, name)
  writeFileSync(file, text)
  return file
}

/** The records the API answers for store 1 in 2026, as the app would see them. */
async function usages2026() {
  const { access } = await signIn(current.app, sms, owner)
  const response = await current.app.inject({
    method: 'GET',
    url: '/api/v0/store/1/usage?year=2026',
    headers: bearer(access),
  })
  return response.json().usages as { createdAt: string; amount: number }[]
}

/** The picture of user `id`, as the database holds it. */
async function listAccountsImages(id: number) {
  const rows = await queryRows<{ image: string | null }>(
    current.app.db,
    sql`select image from users where id = ${id}`,
  )
  return rows.map((row) => row.image)
}

async function ownerWithStore() {
  await admin('add-user', owner, '김사장')
  await admin('add-store', '역삼점')
  await admin('grant', owner, '1', '--role', 'owner')
}

describe('npm run admin', () => {
  it('adds a user and a store with pictures copied into IMAGE_DIR under unguessable names, grants and revokes access', async () => {
    const picture = csvFile('front.PNG', 'not really a png')
    expect((await admin('add-user', owner, '김사장', '--image', picture)).output).toBe('user 1 added')
    expect((await admin('add-store', '역삼', '1호점', '--image', picture, '--image', picture)).output).toBe(
      'store 1 added',
    )
    await admin('grant', owner, '1')
    const { access } = await signIn(current.app, sms, owner)
    const profile = await current.app.inject({ method: 'GET', url: '/api/v0/user', headers: bearer(access) })
    const images: string[] = profile.json().stores[0].images
    const userImage: string = profile.json().user.image
    // 128 random bits each: nobody can walk users/1.png, users/2.png ….
    expect(userImage).toMatch(/^users\/[A-Za-z0-9_-]{22}\.png$/)
    expect(images).toHaveLength(2)
    for (const image of images) expect(image).toMatch(/^stores\/[A-Za-z0-9_-]{22}\.png$/)
    expect(images[0]).not.toBe(images[1])
    expect(readFileSync(path.join(dir, 'images', images[1] ?? ''), 'utf8')).toBe('not really a png')
    expect(existsSync(path.join(dir, 'images', userImage))).toBe(true)
    expect((await admin('list')).output).toBe(
      [
        'user 1  01012345678  김사장  stores: 1:staff',
        `store 1  역삼 1호점  images: ${images.join(', ')}`,
      ].join('\n'),
    )
    expect(profile.json().stores).toEqual([{ id: 1, name: '역삼 1호점', images, role: 'staff' }])

    expect((await admin('revoke', owner, '1')).output).toBe('01012345678 may no longer see store 1')
    expect((await admin('list')).output).toContain('stores: -')
  })

  it("lists a store's devices and revokes one or all of them (a device that never speaks counts as offline)", async () => {
    await ownerWithStore()
    await admin('add-store', '강남점')
    // Ids given here (a device's own are random): devices 1 to 4, in the order added.
    let nextId = 1
    const device = (storeId: number, name: string, paired: boolean) =>
      current.app.db.execute(
        sql`insert into devices (id, store_id, name, key_hash, paired_at) values (${nextId++}, ${storeId}, ${name},
          ${paired ? `key-${name}` : null}, ${paired ? '2026-03-01T00:00:00Z' : null}::timestamptz)`,
      )
    await device(1, '세탁기 1', true)
    await device(1, '세탁기 2', true)
    await device(1, '건조기', false)
    await device(2, '남의 단말기', true)
    await current.app.db.execute(
      sql`insert into device_pairings (code_hash, device_id, expires_at) values ('h', 3, now() + interval '10 minutes')`,
    )
    const listed = await admin('devices', '1')
    expect(listed.code).toBe(0)
    expect(listed.output.split('\n')).toEqual([
      expect.stringMatching(
        /^device 1 {2}세탁기 1 {2}paired 2026-03-01T00:00:00\.000Z {2}last seen - {2}active$/,
      ),
      expect.stringMatching(
        /^device 2 {2}세탁기 2 {2}paired 2026-03-01T00:00:00\.000Z {2}last seen - {2}active$/,
      ),
      expect.stringMatching(/^device 3 {2}건조기 {2}not paired {2}last seen - {2}active$/),
    ])
    expect(await admin('revoke-device', '1', '2')).toEqual({ code: 0, output: 'store 1: device 2 revoked' })
    // Another store's device is not found through this store.
    await expect(admin('revoke-device', '1', '4')).rejects.toThrow('store 1 has no device 4')
    expect(await admin('revoke-device', '1', 'all')).toEqual({
      code: 0,
      output: 'store 1: 2 device(s) revoked (device 1, device 3)',
    })
    expect((await admin('devices', '1')).output).toMatch(
      /device 1 .* revoked 20\d\d-.*\n.*device 2 .* revoked/,
    )
    const rows = await queryRows<{ id: number; revoked: boolean }>(
      current.app.db,
      sql`select id, revoked_at is not null as revoked from devices order by id`,
    )
    expect(rows.map((row) => [Number(row.id), row.revoked])).toEqual([
      [1, true],
      [2, true],
      [3, true],
      [4, false],
    ])
    // The waiting pairing code went with its device.
    expect(await queryRows(current.app.db, sql`select 1 from device_pairings`)).toEqual([])
    await expect(admin('devices', 'x')).rejects.toThrow('not a store id: x')
    await expect(admin('revoke-device', '1')).rejects.toThrow('revoke-device needs <storeId> <deviceId|all>')
  })

  it('refuses a duplicate user, an unknown phone or store, and an unknown command', async () => {
    await admin('add-user', owner, '김사장')
    await expect(admin('add-user', owner, '또')).rejects.toThrow(/already registered/)
    await expect(admin('grant', '01099999999', '1')).rejects.toThrow(/no user/)
    await expect(admin('grant', owner, '7')).rejects.toThrow(/no store 7/)
    await expect(admin('fly')).rejects.toThrow(/unknown command: fly/)
  })

  it('messages lists the last messages the provider refused or that failed, newest first, masked', async () => {
    expect((await admin('messages')).output).toBe('no message failures')
    const log = { error: () => {} }
    const failure = (at: string, to: string, outcome: FailedOutcome) =>
      recordMessageFailure(current.app.db, log, {
        purpose: 'signIn',
        to,
        outcome,
        attempts: 1,
        at: new Date(at),
      })
    await failure('2026-12-01T00:00:00Z', '01011112222', {
      status: 'failed',
      channel: 'sms',
      code: 'InternalError',
      detail: '서버 오류',
      httpStatus: 500,
    })
    await failure('2026-12-02T00:00:00Z', owner, {
      status: 'refused',
      channel: 'alimtalk',
      reason: 'templateNotApproved',
      code: '3034',
      detail: '검수 완료되지 않은 템플릿입니다.',
    })
    const listed = await admin('messages')
    expect(listed.code).toBe(0)
    expect(listed.output.split('\n')).toEqual([
      '2026-12-02T00:00:00.000Z  signIn  alimtalk  refused (templateNotApproved)  code 3034  to *******5678  검수 완료되지 않은 템플릿입니다.',
      '2026-12-01T00:00:00.000Z  signIn  sms  failed after 1 try  code InternalError (HTTP 500)  to *******2222  서버 오류',
    ])
    expect((await admin('messages', '--limit', '1')).output.split('\n')).toHaveLength(1)
    await expect(admin('messages', '--limit', '0')).rejects.toThrow('--limit is 1 to 1000')
    // Kept 90 days: a failure 91 days later removes the first two.
    await failure('2027-03-03T00:00:00Z', owner, {
      status: 'failed',
      channel: 'sms',
      code: 'NetworkError',
      detail: 'fetch failed',
    })
    expect((await admin('messages')).output).toMatch(
      /^2027-03-03T00:00:00.000Z .*code NetworkError .*fetch failed$/,
    )
  })

  it('sign-out ends every sign-in of a user, and remove-user deletes the user: their tokens stop working', async () => {
    await admin('add-user', owner, '김사장')
    const phone = await signIn(current.app, sms, owner)
    const laptop = await signIn(current.app, sms, owner)
    expect((await admin('sign-out', owner)).output).toBe('01012345678: ended 2 sign-in(s)')
    for (const pair of [phone, laptop]) {
      const profile = await current.app.inject({
        method: 'GET',
        url: '/api/v0/user',
        headers: bearer(pair.access),
      })
      expect(profile.statusCode).toBe(401)
      const rotated = await current.app.inject({
        method: 'GET',
        url: `/api/v0/user/sign?token=${pair.refresh}`,
      })
      expect(rotated.statusCode).toBe(401)
    }

    const again = await signIn(current.app, sms, owner)
    expect((await admin('remove-user', owner)).output).toBe('01012345678 removed')
    await expect(current.app.tokens.verifyAccess(again.access)).rejects.toMatchObject({ statusCode: 401 })
    const rotated = await current.app.inject({
      method: 'GET',
      url: `/api/v0/user/sign?token=${again.refresh}`,
    })
    expect(rotated.statusCode).toBe(401)
    expect((await admin('list')).output).not.toContain(owner)
  })
})

describe('pictures an earlier version copied under guessable names', () => {
  it('are renamed to unguessable names at start, the rows with them; the old names are gone', async () => {
    const images = path.join(dir, 'images')
    mkdirSync(path.join(images, 'users'), { recursive: true })
    mkdirSync(path.join(images, 'stores'), { recursive: true })
    writeFileSync(path.join(images, 'users', '1.png'), 'face')
    writeFileSync(path.join(images, 'stores', '1-1.jpg'), 'logo')
    writeFileSync(path.join(images, 'stores', '1-2.jpg'), 'front')
    const userId = await addUser(current.app.db, { phone: owner, name: '김사장', image: 'users/1.png' })
    // One picture whose file is gone is left as it is; the demo's pictures are not uploads.
    const storeId = await addStore(current.app.db, {
      name: '역삼점',
      images: ['stores/1-1.jpg', 'demo/store-1.svg', 'stores/1-2.jpg', 'stores/1-3.jpg'],
    })
    expect(await renameGuessablePictures(current.app.db, images)).toBe(3)
    const [user] = await listAccountsImages(userId)
    expect(user).toMatch(/^users\/[A-Za-z0-9_-]{22}\.png$/)
    expect(readFileSync(path.join(images, user ?? ''), 'utf8')).toBe('face')
    const [store] = (await listStores(current.app.db)).filter((s) => s.id === storeId)
    const [logo, demo, front, missing] = store?.images ?? []
    expect(logo).toMatch(/^stores\/[A-Za-z0-9_-]{22}\.jpg$/)
    expect(front).toMatch(/^stores\/[A-Za-z0-9_-]{22}\.jpg$/)
    expect([demo, missing]).toEqual(['demo/store-1.svg', 'stores/1-3.jpg'])
    expect(readFileSync(path.join(images, front ?? ''), 'utf8')).toBe('front')
    for (const old of ['users/1.png', 'stores/1-1.jpg', 'stores/1-2.jpg'])
      expect(existsSync(path.join(images, old)), old).toBe(false)
    // Once done, nothing more to do.
    expect(await renameGuessablePictures(current.app.db, images)).toBe(0)
  })
})

describe('importing usage records from CSV', () => {
  it('imports rows with a header, in any column order, and the API answers them', async () => {
    await ownerWithStore()
    const file = csvFile(
      'header.csv',
      '\uFEFFamount,createdAt,id\n4000,2026-03-01T09:15:00.000Z,a1\n"5,000",2026-03-01T10:00:00+09:00,a2\n',
    )
    const result = await admin('import', '1', file)
    expect(result).toEqual({ code: 0, output: 'imported 2, skipped 0 (already present), rejected 0' })
    expect(await usages2026()).toEqual([
      { createdAt: '2026-03-01T01:00:00.000Z', amount: 5000 },
      { createdAt: '2026-03-01T09:15:00.000Z', amount: 4000 },
    ])
  })

  it('is idempotent: importing the same file again adds nothing', async () => {
    await ownerWithStore()
    const file = csvFile('twice.csv', '2026-01-02T00:00:00Z,3000,x1\n2026-01-03T00:00:00Z,4000,x2\n')
    expect((await admin('import', '1', file)).output).toContain('imported 2, skipped 0')
    expect((await admin('import', '1', file)).output).toContain('imported 0, skipped 2')
    expect(await usages2026()).toHaveLength(2)
  })

  it('two imports of one file at the same time add it once (separate connections on PostgreSQL)', async () => {
    await ownerWithStore()
    const lines = ['createdAt,amount,id']
    for (let n = 0; n < 3000; n++) lines.push(`2026-02-01T00:00:00Z,${1000 + n},c${n}`)
    for (let n = 0; n < 3000; n++) lines.push(`2026-02-02 09:00:00,${1000 + (n % 7)}`)
    const file = csvFile('concurrent.csv', lines.join('\n'))
    const [a, b] = await Promise.all([admin('import', '1', file), admin('import', '1', file)])
    const imported = [a, b].map((r) => Number(r.output.match(/imported (\d+)/)?.[1]))
    expect(imported.reduce((x, y) => x + y)).toBe(6000)
    expect(await usages2026()).toHaveLength(6000)
  })

  it('without ids, keeps two identical rows of one file as two records, and still adds nothing the second time', async () => {
    await ownerWithStore()
    const file = csvFile(
      'no-ids.csv',
      'createdAt,amount\n2026-01-02 09:00:00,3000\n2026-01-02 09:00:00,3000\n',
    )
    expect((await admin('import', '1', file)).output).toContain('imported 2, skipped 0')
    expect((await admin('import', '1', file)).output).toContain('imported 0, skipped 2')
    // No offset: read as Korea time.
    expect(await usages2026()).toEqual([
      { createdAt: '2026-01-02T00:00:00.000Z', amount: 3000 },
      { createdAt: '2026-01-02T00:00:00.000Z', amount: 3000 },
    ])
  })

  it("keeps another file's equal row: a washer's and a dryer's file that both hold 09:15 4,000원", async () => {
    await ownerWithStore()
    const washer = csvFile('washer.csv', 'createdAt,amount\n2026-03-01 09:15,4000\n2026-03-01 09:40,3000\n')
    const dryer = csvFile('dryer.csv', 'createdAt,amount\n2026-03-01 09:15,4000\n2026-03-01 10:05,5000\n')
    expect((await admin('import', '1', washer)).output).toBe(
      'imported 2, skipped 0 (already present), rejected 0',
    )
    expect((await admin('import', '1', dryer)).output).toBe(
      'imported 2, skipped 0 (already present), rejected 0',
    )
    expect((await usages2026()).map((u) => u.amount)).toEqual([4000, 4000, 3000, 5000])
    // Each file again adds nothing, and says which lines it skipped and why.
    expect((await admin('import', '1', dryer)).output).toBe(
      [
        'lines 2-3: skipped: 같은 파일(같은 출처)에서 이미 가져온 매출입니다',
        'imported 0, skipped 2 (already present), rejected 0',
      ].join('\n'),
    )
    expect(await usages2026()).toHaveLength(4)
  })

  it('--source names where a file comes from: a file that grows adds only its new rows, two sources with equal content both count', async () => {
    await ownerWithStore()
    const march = csvFile('till.csv', '2026-03-01 09:15,4000\n2026-03-01 09:15,4000\n')
    expect((await admin('import', '1', march, '--source', 'till-1')).output).toContain(
      'imported 2, skipped 0',
    )
    // The same till's export a day later: the two rows it had, and one more.
    const grown = csvFile(
      'till-day-2.csv',
      '2026-03-01 09:15,4000\n2026-03-01 09:15,4000\n2026-03-02 11:00,4000\n',
    )
    expect((await admin('import', '1', grown, '--source', 'till-1')).output).toBe(
      [
        'lines 1-2: skipped: 같은 파일(같은 출처)에서 이미 가져온 매출입니다',
        'imported 1, skipped 2 (already present), rejected 0',
      ].join('\n'),
    )
    // Another till whose file has the very same content.
    expect((await admin('import', '1', march, '--source', 'till-2')).output).toContain(
      'imported 2, skipped 0',
    )
    expect(await usages2026()).toHaveLength(5)
    await expect(admin('import', '1', march, '--source', '')).rejects.toThrow(/--source/)
  })

  it('lists every line it skips for an id already present, in ranges', async () => {
    await ownerWithStore()
    await admin(
      'import',
      '1',
      csvFile('ids-a.csv', 'createdAt,amount,id\n2026-01-02T00:00:00Z,3000,a\n2026-01-02T00:00:00Z,3000,b\n'),
    )
    const result = await admin(
      'import',
      '1',
      csvFile(
        'ids-b.csv',
        'createdAt,amount,id\n2026-01-02T00:00:00Z,3000,a\n2026-01-02T00:00:00Z,3000,b\n2026-01-03T00:00:00Z,3000,c\n2026-01-02T00:00:00Z,3000,\n',
      ),
    )
    expect(result.output).toBe(
      [
        'lines 2-3: skipped: 같은 id의 매출이 이미 있습니다',
        'imported 2, skipped 2 (already present), rejected 0',
      ].join('\n'),
    )
  })

  it('records imported before sources existed keep their keys: the same file again adds nothing, and says so', async () => {
    await ownerWithStore()
    // What an earlier version stored for the first 09:15 4,000원 of a file without ids.
    await current.app.db.execute(
      sql`insert into usages (store_id, created_at, amount, source_id) values
          (1, '2026-03-01T00:15:00Z', 4000, 'row:2026-03-01T00:15:00.000Z|4000|1')`,
    )
    const file = csvFile('old.csv', '2026-03-01 09:15,4000\n2026-03-01 09:15,4000\n')
    expect((await admin('import', '1', file)).output).toBe(
      [
        'line 1: skipped: 이전 버전이 출처 없이 가져온 같은 매출(같은 시각·금액의 같은 순번)이 있습니다; 다른 곳의 매출이면 id 열을 붙여 다시 가져오세요',
        'imported 1, skipped 1 (already present), rejected 0',
      ].join('\n'),
    )
    expect(await usages2026()).toHaveLength(2)
    // The same till's export, grown since, imported with the --source the docs ask for: its old row
    // (imported before sources existed) is not counted again, and only the new one is added.
    const grown = csvFile(
      'old-grown.csv',
      '2026-03-01 09:15,4000\n2026-03-01 09:15,4000\n2026-03-02 10:00,3000\n',
    )
    expect((await admin('import', '1', grown, '--source', 'till-1')).output).toBe(
      [
        'line 1: skipped: 이전 버전이 출처 없이 가져온 같은 매출(같은 시각·금액의 같은 순번)이 있습니다; 다른 곳의 매출이면 id 열을 붙여 다시 가져오세요',
        'imported 2, skipped 1 (already present), rejected 0',
      ].join('\n'),
    )
    expect(await usages2026()).toHaveLength(4)
    // Another place's equal sale, given an id, is imported.
    const other = csvFile('dryer-ids.csv', 'createdAt,amount,id\n2026-03-01 09:15,4000,dryer-1\n')
    expect((await admin('import', '1', other)).output).toContain('imported 1, skipped 0')
    expect(await usages2026()).toHaveLength(5)
  })

  it('a file with a bad row changes nothing and names every bad line', async () => {
    await ownerWithStore()
    const file = csvFile(
      'bad.csv',
      [
        'createdAt,amount,id',
        '2026-01-02T00:00:00Z,3000,ok1',
        '2026-02-30T00:00:00Z,3000,bad-date',
        'yesterday,3000,bad-time',
        '2026-01-02T00:00:00Z,-500,negative',
        '2026-01-02T00:00:00Z,99999999,too-big',
        '2026-01-02T00:00:00Z,3000.5,fraction',
        '2026-01-03T00:00:00Z,3000,ok1',
      ].join('\n'),
    )
    const result = await admin('import', '1', file)
    expect(result.code).toBe(1)
    const lines = result.output.split('\n')
    expect(lines.map((line) => line.match(/^line (\d+):/)?.[1]).filter(Boolean)).toEqual([
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
    ])
    expect(result.output).toContain('line 8: id "ok1"가 2번째 줄에도 있습니다')
    expect(lines.at(-1)).toBe('rejected 6 row(s); nothing was imported. Fix the file and run again.')
    expect(await usages2026()).toEqual([])
  })

  it('names at most 1,000 bad lines, counts them all, and imports nothing', async () => {
    await ownerWithStore()
    const lines = ['createdAt,amount,id']
    for (let n = 1; n <= 1500; n++) lines.push(`2026-01-02T00:00:00Z,${n % 2 ? 'x' : '3000'},dup`)
    const result = await admin('import', '1', csvFile('many-bad.csv', lines.join('\n')))
    expect(result.code).toBe(1)
    const reported = result.output.split('\n').filter((line) => line.startsWith('line '))
    expect(reported).toHaveLength(1000)
    // Bad amounts and repeated ids, in file order: line 2 is a bad amount, line 3 the first "dup".
    expect(reported.slice(0, 3)).toEqual([
      'line 2: 금액은 0부터 10,000,000까지의 정수(원)여야 합니다: "x"',
      'line 4: 금액은 0부터 10,000,000까지의 정수(원)여야 합니다: "x"',
      'line 5: id "dup"가 3번째 줄에도 있습니다',
    ])
    expect(result.output).toContain('... (only the first 1000 bad lines are listed)')
    expect(result.output.split('\n').at(-1)).toBe(
      'rejected 1499 row(s); nothing was imported. Fix the file and run again.',
    )
    expect(await usages2026()).toEqual([])
  })

  it('a file that is not CSV (an unclosed quote) imports nothing and says where', async () => {
    await ownerWithStore()
    const result = await admin(
      'import',
      '1',
      csvFile('broken.csv', '2026-01-02T00:00:00Z,3000,a\n"2026-01-03,4000,b\n'),
    )
    expect(result.code).toBe(1)
    expect(result.output).toMatch(/^line \d+: CSV 형식 오류: /)
    expect(await usages2026()).toEqual([])
  })

  it('refuses an unknown store before reading the file', async () => {
    await ownerWithStore()
    await expect(admin('import', '9', csvFile('x.csv', '2026-01-02T00:00:00Z,3000'))).rejects.toThrow(
      /no store 9/,
    )
  })

  it('a new import shows up in the next usage answer of that year', async () => {
    await ownerWithStore()
    await admin('import', '1', csvFile('a.csv', '2026-01-02T00:00:00Z,3000,a'))
    expect(await usages2026()).toHaveLength(1)
    await admin('import', '1', csvFile('b.csv', '2026-01-03T00:00:00Z,4000,b'))
    expect(await usages2026()).toHaveLength(2)
  })
})
