// Initialising a PGlite database takes seconds; loading a dump of one takes well under one. So the
// migrated empty database is made once per run and every test file starts from a copy of it. On
// PostgreSQL (the project whose TEST_DB is postgres) a migrated empty database is made once too, and
// each test database is created as a copy of it (CREATE DATABASE … TEMPLATE), so opening one finds
// every migration applied instead of running them all again.
import { rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { TestProject } from 'vitest/node'
import { createPostgresDatabase } from '../../scripts/postgres-database.ts'
import { openDatabase } from '../../server/db/client.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string
    /** The migrated empty PostgreSQL database to copy (TEST_DB=postgres only). */
    postgresTemplate: string
  }
}

async function postgresTemplate(adminUrl: string) {
  const template = await createPostgresDatabase(adminUrl, 'laundry_template')
  const database = await openDatabase({ databaseUrl: template.url })
  await database.close()
  return template
}

export default async function setup(project: TestProject) {
  const database = await openDatabase({ pgliteDir: null })
  const dump = await database.pglite?.dumpDataDir('none')
  if (!dump) throw new Error('expected a PGlite database')
  await database.close()
  const file = path.join(tmpdir(), `laundry-pglite-template-${process.pid}.tar`)
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()))
  project.provide('pgliteTemplate', file)
  const adminUrl = process.env.DATABASE_URL
  const template =
    project.config.env?.TEST_DB === 'postgres' && adminUrl ? await postgresTemplate(adminUrl) : null
  if (template) project.provide('postgresTemplate', template.name)
  return async () => {
    rmSync(file, { force: true })
    await template?.drop()
  }
}
