// The team's log (docs/product.md §15, decision 203): who invited, cancelled, joined, changed or
// removed whom, when, with the role and money setting after; newest first.
import { useQuery } from '@tanstack/react-query'
import type { TeamLogEntry } from '../../../contract/team.ts'
import { when } from './member-item.tsx'
import { teamLogQuery } from './team-query.ts'
import { actionNames, roleNames } from './team-text.ts'

/** Who did it: an owner's name; null is the operator's admin command, or the invitee's own sign-in. */
const byText = (entry: TeamLogEntry) =>
  entry.by === null
    ? entry.action === 'joined'
      ? '초대받은 번호로 로그인'
      : '운영자가 처리'
    : `${entry.by} 님이 처리`

const afterText = (entry: TeamLogEntry) =>
  entry.role === null
    ? ''
    : ` (${roleNames[entry.role]}${entry.role === 'staff' ? `, 금액 ${entry.showsMoney ? '보임' : '숨김'}` : ''})`

export function TeamLog({ storeId }: { storeId: number }) {
  const log = useQuery(teamLogQuery(storeId))
  return (
    <section aria-labelledby="team-log-title">
      <h2 id="team-log-title">기록</h2>
      {log.isPending ? (
        <p className="team-note">불러오는 중…</p>
      ) : log.error && !log.data ? (
        <p className="team-error" role="alert">
          {log.error.message}
        </p>
      ) : log.data?.entries.length === 0 ? (
        <p className="team-note">아직 기록이 없습니다.</p>
      ) : (
        <ol className="team-log" data-testid="team-log">
          {log.data?.entries.map((entry, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the lines have no id, and the list is replaced whole.
            <li key={index}>
              <time dateTime={entry.at}>{when(entry.at)}</time>
              <span className="team-log-action">{actionNames[entry.action]}</span>
              <span>
                {entry.who}
                {afterText(entry)}
              </span>
              <span className="team-log-by">{byText(entry)}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  )
}
