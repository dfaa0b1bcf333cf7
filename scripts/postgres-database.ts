// A database of its own on the PostgreSQL server of `adminUrl`, for a test file or a benchmark: created
// with a random name (a copy of `template` when given, e.g. an already migrated empty database), dropped
// again (with any connection still open) by `drop`.
import { randomBytes } from 'node:crypto'
import pg from 'pg'

export async function createPostgresDatabase(
  adminUrl: string,
  prefix = 'laundry_test',
  template?: string,
): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    await admin.query(
      `create database ${name}${template ? ` template ${pg.escapeIdentifier(template)}` : ''}`,
    )
  } finally {
    await admin.end()
  }
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return {
    name,
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl })
      await client.connect()
      await client.query(`drop database if exists ${name} with (force)`)
      await client.end()
    },
  }
}
