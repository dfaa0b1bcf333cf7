import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ConfigError, readConfig } from '../../server/config.ts'
import { jwtSecret } from '../../server/sign-in/tokens.ts'

describe('configuration', () => {
  it('has working defaults: port 3000 on localhost, PGlite in ./data, console SMS, demo data', () => {
    const config = readConfig({})
    expect(config.port).toBe(3000)
    expect(config.host).toBe('localhost')
    expect(config.dataDir).toBe(path.resolve('data'))
    expect(config.imageDir).toBe(path.resolve('data/images'))
    expect(config.databaseUrl).toBeUndefined()
    expect(config.sms).toEqual({ provider: 'console' })
    expect(config.seedDemo).toBe(true)
    expect(config.limits).toMatchObject({ codeTtlSeconds: 180, codeMaxTries: 5, signFailuresBeforeLock: 10 })
  })

  it('names every wrong variable in one error', () => {
    expect(() => readConfig({ PORT: 'eighty', SMS_PROVIDER: 'pigeon', LOCK_MINUTES: '0' })).toThrowError(
      /PORT="eighty".*\n.*SMS_PROVIDER="pigeon".*\n.*LOCK_MINUTES="0"/s,
    )
  })

  it('snapshots of the embedded database: every 15 minutes, 8 kept, in $DATA_DIR/snapshots unless told', () => {
    expect(readConfig({ DATA_DIR: '/srv/laundry' }).snapshots).toEqual({
      dir: '/srv/laundry/snapshots',
      minutes: 15,
      kept: 8,
    })
    expect(
      readConfig({ SNAPSHOT_DIR: '/backup/laundry', SNAPSHOT_MINUTES: '5', SNAPSHOTS_KEPT: '30' }).snapshots,
    ).toEqual({ dir: '/backup/laundry', minutes: 5, kept: 30 })
    expect(() => readConfig({ SNAPSHOT_MINUTES: '0', SNAPSHOTS_KEPT: '0' })).toThrowError(
      /SNAPSHOT_MINUTES="0".*\n.*SNAPSHOTS_KEPT="0"/s,
    )
  })

  it('refuses to start in production without JWT_SECRET', () => {
    expect(() => readConfig({ NODE_ENV: 'production' })).toThrowError(ConfigError)
    expect(() => readConfig({ NODE_ENV: 'production' })).toThrowError(/JWT_SECRET is required/)
    expect(
      readConfig({
        NODE_ENV: 'production',
        JWT_SECRET: 'x'.repeat(32),
        VAPID_SUBJECT: 'mailto:ops@laundry.co.kr',
      }).production,
    ).toBe(true)
  })

  it('refuses to start in production without a VAPID subject Apple accepts (mailto: or https:, a real domain)', () => {
    const production = { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) }
    expect(() => readConfig(production)).toThrowError(/VAPID_SUBJECT is required/)
    for (const subject of [
      'mailto:push@localhost',
      'mailto:owner@shop.local',
      'mailto:owner@example.invalid',
      'https://localhost/contact',
      'https://laundry.local',
      'mailto:nobody',
      'https://192.168.0.10/',
      'http://laundry.co.kr',
    ])
      expect(() => readConfig({ ...production, VAPID_SUBJECT: subject }), subject).toThrowError(
        /VAPID_SUBJECT/,
      )
    for (const subject of ['mailto:owner@laundry.co.kr', 'https://laundry.co.kr/contact'])
      expect(readConfig({ ...production, VAPID_SUBJECT: subject }).push.subject).toBe(subject)
    // Outside production a stand-in serves (and any mailto:/https: subject is taken as given).
    expect(readConfig({}).push).toEqual({
      keys: undefined,
      subject: 'mailto:push@example.com',
      allowedOrigins: [],
    })
    expect(readConfig({ VAPID_SUBJECT: 'mailto:dev@localhost' }).push.subject).toBe('mailto:dev@localhost')
  })

  it('takes VAPID keys in pairs, and PUSH_ALLOWED_ORIGINS as https origins', () => {
    expect(() => readConfig({ VAPID_PUBLIC_KEY: `B${'A'.repeat(86)}` })).toThrowError(/go together/)
    expect(() => readConfig({ VAPID_PUBLIC_KEY: 'short', VAPID_PRIVATE_KEY: 'A'.repeat(43) })).toThrowError(
      /VAPID_PUBLIC_KEY="short"/,
    )
    expect(
      readConfig({ PUSH_ALLOWED_ORIGINS: 'https://push.example.net, https://127.0.0.1:8443/' }).push
        .allowedOrigins,
    ).toEqual(['https://push.example.net', 'https://127.0.0.1:8443'])
    for (const bad of ['http://push.example.net', 'https://push.example.net/path', 'push.example.net'])
      expect(() => readConfig({ PUSH_ALLOWED_ORIGINS: bad }), bad).toThrowError(/PUSH_ALLOWED_ORIGINS/)
  })

  it('needs a URL and a secret for webhook SMS', () => {
    expect(() => readConfig({ SMS_PROVIDER: 'webhook' })).toThrowError(/SMS_WEBHOOK_URL/)
  })

  it('generates a secret once outside production and keeps it in the data directory', () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'laundry-config-'))
    try {
      const config = readConfig({ DATA_DIR: dataDir })
      const first = jwtSecret(config)
      expect(first.length).toBeGreaterThanOrEqual(32)
      expect(existsSync(path.join(dataDir, 'jwt-secret'))).toBe(true)
      expect(jwtSecret(config)).toBe(first)
      expect(readFileSync(path.join(dataDir, 'jwt-secret'), 'utf8').trim()).toBe(first)
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })

  describe('a folder the server serves (IMAGE_DIR, WEB_DIR) never holds the database, the secret or the snapshots', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'laundry-served-'))
    afterAll(() => rmSync(root, { recursive: true, force: true }))
    const data = path.join(root, 'data')

    it.each([
      ['IMAGE_DIR is DATA_DIR', { IMAGE_DIR: data }, /IMAGE_DIR=.*DATA_DIR=/s],
      ['IMAGE_DIR holds DATA_DIR', { IMAGE_DIR: root }, /IMAGE_DIR=.*DATA_DIR=/s],
      [
        'IMAGE_DIR inside the database',
        { IMAGE_DIR: path.join(data, 'pglite', 'base') },
        /IMAGE_DIR=.*DATA_DIR=/s,
      ],
      [
        'IMAGE_DIR is a database a restore kept aside',
        { IMAGE_DIR: path.join(data, 'pglite.before-restore-20261123T054800000Z') },
        /IMAGE_DIR=.*DATA_DIR=/s,
      ],
      [
        'IMAGE_DIR is the snapshots',
        { IMAGE_DIR: path.join(data, 'snapshots') },
        /IMAGE_DIR=.*SNAPSHOT_DIR=/s,
      ],
      [
        'SNAPSHOT_DIR inside the default IMAGE_DIR',
        { SNAPSHOT_DIR: path.join(data, 'images', 'backup') },
        /IMAGE_DIR=.*SNAPSHOT_DIR=/s,
      ],
      ['WEB_DIR holds DATA_DIR', { WEB_DIR: root }, /WEB_DIR=.*DATA_DIR=/s],
      [
        'WEB_DIR inside the snapshots',
        { SNAPSHOT_DIR: path.join(root, 'snap'), WEB_DIR: path.join(root, 'snap', 'web') },
        /WEB_DIR=.*SNAPSHOT_DIR=/s,
      ],
    ])('refuses to start when %s, naming both variables', (_, env, message) => {
      expect(() => readConfig({ DATA_DIR: data, ...env })).toThrowError(ConfigError)
      expect(() => readConfig({ DATA_DIR: data, ...env })).toThrowError(message)
    })

    it('compares real paths: a symbolic link to DATA_DIR is DATA_DIR', () => {
      mkdirSync(path.join(root, 'real'), { recursive: true })
      symlinkSync(path.join(root, 'real'), path.join(root, 'link'))
      expect(() =>
        readConfig({ DATA_DIR: path.join(root, 'link'), IMAGE_DIR: path.join(root, 'real') }),
      ).toThrowError(/IMAGE_DIR=.*DATA_DIR=/s)
      expect(() =>
        readConfig({ DATA_DIR: path.join(root, 'real'), WEB_DIR: path.join(root, 'link') }),
      ).toThrowError(/WEB_DIR=.*DATA_DIR=/s)
    })

    it('allows the default IMAGE_DIR inside DATA_DIR, and folders beside the data', () => {
      expect(readConfig({ DATA_DIR: data }).imageDir).toBe(path.join(data, 'images'))
      expect(readConfig({ DATA_DIR: data, IMAGE_DIR: path.join(data, 'pictures') }).imageDir).toBe(
        path.join(data, 'pictures'),
      )
      expect(
        readConfig({ DATA_DIR: data, IMAGE_DIR: path.join(root, 'images'), WEB_DIR: path.join(root, 'dist') })
          .webDir,
      ).toBe(path.join(root, 'dist'))
      // A name that only starts like the database's is another folder.
      expect(readConfig({ DATA_DIR: data, IMAGE_DIR: path.join(data, 'pglite-pictures') }).imageDir).toBe(
        path.join(data, 'pglite-pictures'),
      )
    })
  })
})
