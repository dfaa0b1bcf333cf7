// Builds the real app for a test file on a fresh database: in-memory PGlite, or (TEST_DB=postgres) a
// new database on the PostgreSQL of DATABASE_URL that `close()` drops again.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { inject } from 'vitest'
import { buildApp } from '../../server/app.ts'
import { readConfig } from '../../server/config.ts'
import { type Database, openDatabase } from '../../server/db/client.ts'

async function createPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = process.env.DATABASE_URL
  if (!adminUrl) throw new Error('TEST_DB=postgres needs DATABASE_URL')
  const name = `laundry_test_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  await admin.query(`create database ${name}`)
  await admin.end()
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl })
      await client.connect()
      await client.query(`drop database if exists ${name} with (force)`)
      await client.end()
    },
  }
}

export async function openTestDatabase(): Promise<Database> {
  if (process.env.TEST_DB !== 'postgres') {
    return openDatabase({ pgliteDir: null, loadDataDir: new Blob([readFileSync(inject('pgliteTemplate'))]) })
  }
  const created = await createPostgresDatabase()
  const database = await openDatabase({ databaseUrl: created.url })
  return {
    ...database,
    close: async () => {
      await database.close()
      await created.drop()
    },
  }
}

export interface TestAppOptions {
  env?: Record<string, string>
  logStream?: { write(line: string): void }
}

export async function createTestApp({ env = {}, logStream }: TestAppOptions = {}) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'laundry-test-'))
  const config = readConfig({
    DATA_DIR: dataDir,
    WEB_DIR: path.join(dataDir, 'no-web-app'),
    LOG_LEVEL: logStream ? 'info' : 'silent',
    JWT_SECRET: 'test-secret-test-secret-test-secret-0123',
    ...env,
  })
  const database = await openTestDatabase()
  const app = await buildApp({ config, database, logStream })
  app.addHook('onClose', () => rmSync(dataDir, { recursive: true, force: true }))
  return app
}
