// A process on an embedded database with a watchdog, for watchdog.test.ts. `hang`: runs a statement
// that does not answer for days (as one hung in PGlite would not at all); `normal`: short queries, an
// idle spell of three times the limit, a transaction, and a clean close.
import { readFileSync } from 'node:fs'
import { sql } from 'drizzle-orm'
import { openDatabase } from '../../../server/db/client.ts'

const [template = '', limitMs = '1000', mode = 'normal'] = process.argv.slice(2)
const database = await openDatabase({
  pgliteDir: null,
  loadDataDir: new Blob([readFileSync(template)]),
  stallMs: Number(limitMs),
})
process.stdout.write('opened\n')
if (mode === 'hang') {
  // 10^10 rows: it would run for days, and nothing in this process can interrupt it.
  await database.db.execute(
    sql`select count(*) as endless from generate_series(1, 100000) a, generate_series(1, 100000) b`,
  )
  process.stdout.write('answered\n')
} else {
  for (let i = 0; i < 20; i++) await database.db.execute(sql`select count(*) from stores`)
  await new Promise((resolve) => setTimeout(resolve, 3 * Number(limitMs)))
  await database.db.transaction(async (tx) => {
    await tx.execute(sql`insert into stores (name) values ('a')`)
    await tx.execute(sql`select count(*) from stores`)
  })
  await database.close()
  process.stdout.write('closed\n')
}
