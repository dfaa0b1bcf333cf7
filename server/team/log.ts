// The team's log (docs/product.md §15): who invited, joined, changed or removed whom in a store, and
// when; written in the transaction of the change it tells of (the team's calls, a sign-in that uses an
// invite, the admin commands), read by owners, kept a year.
import { desc, eq, lt } from 'drizzle-orm'
import type { Role, TeamAction, TeamLogEntry } from '../../contract/team.ts'
import type { Db } from '../db/client.ts'
import { teamLog } from '../db/schema-team.ts'
import { maskPhone } from '../messages/transport.ts'

/** How long a line is kept. */
export const teamLogDays = 365
/** The most lines one answer lists (the newest). */
export const teamLogListed = 500

export interface TeamLine {
  storeId: number
  action: TeamAction
  actor: { id: number; name: string } | null
  subject: { id: number | null; name: string | null; phone: string }
  role?: Role | null
  showsMoney?: boolean | null
  at: Date
}

/** Writes one line; `db` is the change's transaction. */
export async function writeTeamLine(db: Db, line: TeamLine) {
  await db.insert(teamLog).values({
    storeId: line.storeId,
    at: line.at,
    action: line.action,
    actorId: line.actor?.id ?? null,
    actorName: line.actor?.name ?? null,
    subjectId: line.subject.id,
    subjectName: line.subject.name,
    subjectPhone: line.subject.phone,
    role: line.role ?? null,
    showsMoney: line.showsMoney ?? null,
  })
}

/** The store's log, newest first (at most `teamLogListed` lines). */
export async function readTeamLog(db: Db, storeId: number): Promise<TeamLogEntry[]> {
  const rows = await db
    .select()
    .from(teamLog)
    .where(eq(teamLog.storeId, storeId))
    .orderBy(desc(teamLog.id))
    .limit(teamLogListed)
  return rows.map((row) => ({
    at: row.at.toISOString(),
    action: row.action as TeamAction,
    by: row.actorName,
    who: row.subjectName ?? maskPhone(row.subjectPhone),
    phone: maskPhone(row.subjectPhone),
    role: (row.role as Role | null) ?? null,
    showsMoney: row.showsMoney,
  }))
}

/** Deletes the lines older than a year (the hourly sweep). */
export async function sweepTeamLog(db: Db, now: Date) {
  const before = new Date(now.getTime() - teamLogDays * 24 * 60 * 60 * 1000)
  await db.delete(teamLog).where(lt(teamLog.at, before))
}
