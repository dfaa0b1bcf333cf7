import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
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
    expect(readConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) }).production).toBe(true)
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
})
