// A process that evaluates the alert rules twice with many candidates, for many-candidates.test.ts: it
// opens the embedded database from the template file (or PostgreSQL at the address) given, makes
// `count` stores of one owner, each with a paired device that never spoke (every one offline: a
// device alert each), and says `evaluated <n>` after each evaluation. Its parent bounds it with a
// timeout: on PGlite a row-constructor IN list of 250 rows or more hung the second time it ran,
// and a hung query blocks the process's only thread, so no timer inside it could end the test.
import { readFileSync } from 'node:fs'
import { sql } from 'drizzle-orm'
import { createAlertRules } from '../../../server/alerts/evaluate.ts'
import { openDatabase } from '../../../server/db/client.ts'
import type { Push } from '../../../server/push/deliver.ts'

const [target = '', count = '300'] = process.argv.slice(2)
const database = target.startsWith('postgres')
  ? await openDatabase({ databaseUrl: target })
  : await openDatabase({ pgliteDir: null, loadDataDir: new Blob([readFileSync(target)]) })
const { db } = database
const now = new Date('2026-03-16T05:00:00.000Z')
await db.execute(sql`insert into users (phone, name) values ('01011112222', '사장')`)
await db.execute(
  sql`insert into stores (name) select '매장 ' || i from generate_series(1, ${Number(count)}) i`,
)
await db.execute(sql`insert into memberships (user_id, store_id, role) select 1, id, 'owner' from stores`)
await db.execute(
  sql`insert into devices (store_id, name, key_hash, paired_at)
      select id, '단말기', 'key-' || id, ${new Date(now.getTime() - 24 * 3_600_000).toISOString()}::timestamptz from stores`,
)
let pushes = 0
const push = {
  async sendToUser() {
    pushes++
    return { sent: 0, gone: 0, failed: 0 }
  },
} as unknown as Push
const rules = createAlertRules({ db, push })
for (let run = 1; run <= 2; run++) {
  const report = await rules.evaluate(new Date(now.getTime() + (run - 1) * 60_000))
  process.stdout.write(`evaluated ${run}: sent ${report.sent} capped ${report.capped} pushes ${pushes}\n`)
}
await database.close()
