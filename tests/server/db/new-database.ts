// Embedded databases in folders of their own, for the tests of db/: each a copy of the migrated empty
// database (fast), its snapshot folder beside it. Every folder is removed after the file's tests.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, inject } from 'vitest'
import { type Database, openDatabase } from '../../../server/db/client.ts'

/** Returns `newDatabase`, which opens a new embedded database in `<a temporary folder>/db-<n>/pglite`. */
export function embeddedDatabases(prefix: string) {
  const root = mkdtempSync(path.join(tmpdir(), prefix))
  afterAll(() => rmSync(root, { recursive: true, force: true }))
  let count = 0
  const template = () => new Blob([readFileSync(inject('pgliteTemplate'))])
  return {
    root,
    /** A new embedded database in its own folder, its snapshots beside it. */
    async newDatabase() {
      const dir = path.join(root, `db-${++count}`)
      const pgliteDir = path.join(dir, 'pglite')
      const snapshotDir = path.join(dir, 'snapshots')
      const database = await openDatabase({ pgliteDir, loadDataDir: template() })
      return { dir, pgliteDir, snapshotDir, database }
    },
  }
}

export const pglite = (database: Database) => {
  if (!database.pglite) throw new Error('expected PGlite')
  return database.pglite
}
