// Initialising a PGlite database takes seconds; loading a dump of one takes well under one. So the
// migrated empty database is made once per run and every test file starts from a copy of it.
import { rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { TestProject } from 'vitest/node'
import { openDatabase } from '../../server/db/client.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string
  }
}

export default async function setup(project: TestProject) {
  const database = await openDatabase({ pgliteDir: null })
  const dump = await database.pglite?.dumpDataDir('none')
  if (!dump) throw new Error('expected a PGlite database')
  await database.close()
  const file = path.join(tmpdir(), `laundry-pglite-template-${process.pid}.tar`)
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()))
  project.provide('pgliteTemplate', file)
  return () => rmSync(file, { force: true })
}
