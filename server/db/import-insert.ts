// Inserts the rows an import staged (import-csv.ts) into usages under their source ids, in chunks, and
// tells each run of lines skipped as already present with why. Called inside the import's transaction
// once every line was found good (import.ts).

import { sql } from 'drizzle-orm'
import { type Db, queryRows } from './client.ts'

/** Records inserted into usages in one statement. */
const insertChunkLines = 50_000

/** Why a line was skipped as already present. */
export type SkipReason = 'id' | 'source' | 'legacy'

export const skipReasons: Record<SkipReason, string> = {
  id: '같은 id의 매출이 이미 있습니다',
  source: '같은 파일(같은 출처)에서 이미 가져온 매출입니다',
  legacy:
    '이전 버전이 출처 없이 가져온 같은 매출(같은 시각·금액의 같은 순번)이 있습니다; 다른 곳의 매출이면 id 열을 붙여 다시 가져오세요',
}

/** Consecutive lines skipped for the same reason. */
export interface SkippedLines {
  from: number
  to: number
  reason: SkipReason
}

/**
 * Source ids: `id:<id>`, or for a row without one `prefix` (`src:<source>|`) and its time and amount and
 * which occurrence of that pair it is in the file (so two identical sales stay two records). A store
 * holding records an earlier version imported without a source (`row:` keys) has each row's key of that
 * form looked for too (`legacy_id`), with or without --source: the till whose export has grown since,
 * imported now with the --source the docs ask for, must not count its old rows again. Another place's
 * sale equal to such a record is skipped and listed; given an id, it is imported.
 *
 * Returns how many records went in; the skipped lines go to `onSkipped`, in file order, run by run.
 */
export async function insertStaged(
  tx: Db,
  storeId: number,
  prefix: string,
  onSkipped: ((skipped: SkippedLines) => void) | undefined,
): Promise<number> {
  const [legacy] = await queryRows<{ found: boolean }>(
    tx,
    sql`select exists (select 1 from usages where store_id = ${storeId} and source_id like 'row:%') as found`,
  )
  await tx.execute(
    sql.raw(
      'create temp table import_ready (line integer not null, created_at timestamptz not null, ' +
        'amount integer not null, source_id text not null, legacy_id text) on commit drop',
    ),
  )
  await tx.execute(
    sql`insert into import_ready
        select line, created_at, amount,
          case when id is not null then 'id:' || id else ${prefix} || key || '|' || n end,
          case when id is null and ${legacy?.found === true} then 'row:' || key || '|' || n end
        from (select *, row_number() over (partition by key order by line) as n from import_rows) r
        order by line`,
  )
  await tx.execute(sql.raw('create index on import_ready (line)'))
  const [last] = await queryRows<{ line: number | null }>(tx, sql`select max(line) as line from import_ready`)
  let imported = 0
  let pending: SkippedLines | null = null
  const skip = (line: number, reason: SkipReason) => {
    if (pending && pending.reason === reason && pending.to === line - 1) pending.to = line
    else {
      if (pending) onSkipped?.(pending)
      pending = { from: line, to: line, reason }
    }
  }
  for (let from = 0; from <= (last?.line ?? -1); from += insertChunkLines) {
    // One statement a chunk: the rows whose key is new go in; the others come back, in file order,
    // with why (a CTE's insert is not seen by the rest of its statement, so `legacy` and the final
    // select see the table as it was).
    const rows = await queryRows<{ added: number; line: number | null; byId: boolean; legacy: boolean }>(
      tx,
      sql`with candidates as (
            select line, created_at, amount, source_id, legacy_id from import_ready
            where line >= ${from} and line < ${from + insertChunkLines}),
          legacy as (
            select c.line from candidates c
            where c.legacy_id is not null
              and exists (select 1 from usages u where u.store_id = ${storeId} and u.source_id = c.legacy_id)),
          added as (
            insert into usages (store_id, created_at, amount, source_id)
            select ${storeId}, created_at, amount, source_id from candidates c
            where not exists (select 1 from legacy l where l.line = c.line)
            order by line
            on conflict (store_id, source_id) do nothing
            returning source_id)
          select n.added, s.line, s.by_id as "byId", s.legacy
          from (select count(*)::integer as added from added) n
          left join lateral (
            select c.line, c.source_id like 'id:%' as by_id,
              exists (select 1 from legacy l where l.line = c.line) as legacy
            from candidates c
            where not exists (select 1 from added a where a.source_id = c.source_id)) s on true
          order by s.line`,
    )
    imported += rows[0]?.added ?? 0
    for (const row of rows) {
      if (row.line !== null) skip(row.line, row.byId ? 'id' : row.legacy ? 'legacy' : 'source')
    }
  }
  if (pending) onSkipped?.(pending)
  return imported
}
