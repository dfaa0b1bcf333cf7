// PostgreSQL only (the pglite project leaves this file out): a connection the database server ends
// while it sits idle in the pool (a restart, a failover, an administrator) must not crash the process.
// node-postgres reports it as an 'error' event on the pool, which without a listener is an uncaught
// exception: the whole server would exit.
import { sql } from 'drizzle-orm'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Database, queryRows } from '../../../server/db/client.ts'
import { openTestDatabase } from '../test-app.ts'

describe('the PostgreSQL pool', () => {
  let database: Database
  beforeAll(async () => {
    database = await openTestDatabase()
  })
  afterAll(() => database.close())

  it('survives its idle connections being ended by the database server, and goes on answering', async () => {
    const uncaught: unknown[] = []
    const record = (error: unknown) => uncaught.push(error)
    process.on('uncaughtException', record)
    try {
      await database.db.execute(sql`select 1`)
      const [current] = await queryRows<{ name: string }>(database.db, sql`select current_database() as name`)
      const admin = new pg.Client({ connectionString: process.env.DATABASE_URL })
      await admin.connect()
      const ended = await admin.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
        [current?.name],
      )
      await admin.end()
      expect(ended.rowCount).toBeGreaterThan(0)
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(uncaught).toEqual([])
      const [answer] = await queryRows<{ two: number }>(database.db, sql`select 2 as two`)
      expect(answer?.two).toBe(2)
    } finally {
      process.off('uncaughtException', record)
    }
  })
})
