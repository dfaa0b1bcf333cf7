// The owner's team screen (`/team?store=2`, docs/product.md §15, decision 225): the store's members with their role,
// masked number, whether money reaches them, last seen and the alerts each has on; an invite by phone
// with a role; a member's name, role and money setting changed, or the member removed after a confirm
// that says what they lose; the pending invites with their expiry; the log. Owners only: the route
// shows it for a store the user owns, and the server answers 403 to anyone else.
import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { useId } from 'react'
import type { Store } from '../../../contract/api.ts'
import { useDocumentTitle } from '../../lib/document-title.ts'
import { InviteForm, PendingInvites } from './invite-form.tsx'
import { MemberItem } from './member-item.tsx'
import { TeamLog } from './team-log.tsx'
import { membersQuery } from './team-query.ts'
import './team.css'

function StoreChoice({
  store,
  ownedStores,
  onStoreChange,
}: {
  store: Store
  ownedStores: Store[]
  onStoreChange: (storeId: number) => void
}) {
  const fieldId = useId()
  if (ownedStores.length < 2) return <p className="team-store">{store.name}</p>
  return (
    <p className="team-store">
      <label htmlFor={fieldId}>관리할 매장</label>
      <select id={fieldId} value={store.id} onChange={(event) => onStoreChange(Number(event.target.value))}>
        {ownedStores.map((option) => (
          <option key={option.id} value={option.id}>
            {option.name}
          </option>
        ))}
      </select>
    </p>
  )
}

function Members({ store }: { store: Store }) {
  const team = useQuery(membersQuery(store.id))
  return (
    <>
      <section aria-labelledby="team-members-title">
        <h2 id="team-members-title">팀원</h2>
        {team.isPending ? (
          <p className="team-note">불러오는 중…</p>
        ) : team.error && !team.data ? (
          <p className="team-error" role="alert">
            {team.error.message}
          </p>
        ) : (
          <ul className="member-list">
            {team.data?.members.map((member) => (
              <MemberItem key={member.userId} member={member} storeId={store.id} storeName={store.name} />
            ))}
          </ul>
        )}
        <p className="team-note">알림 설정은 팀원 각자가 자기 기기의 알림 화면에서 정합니다.</p>
      </section>
      {team.data && <PendingInvites invites={team.data.invites} storeId={store.id} />}
    </>
  )
}

export function TeamPage({
  store,
  ownedStores,
  onStoreChange,
}: {
  /** The store whose team is shown: one the user owns, or undefined (the address names another, or they own none). */
  store: Store | undefined
  ownedStores: Store[]
  onStoreChange: (storeId: number) => void
}) {
  useDocumentTitle('팀 관리')
  return (
    <main className="team">
      <h1 className="team-title">팀 관리</h1>
      {!store ? (
        <>
          <p className="team-note" role="status">
            팀은 매장 주인만 관리할 수 있습니다.
          </p>
          {ownedStores.length > 0 && (
            <p>
              <Link to="/team" search={{}}>
                내 매장의 팀 보기
              </Link>
            </p>
          )}
        </>
      ) : (
        <>
          <StoreChoice store={store} ownedStores={ownedStores} onStoreChange={onStoreChange} />
          <InviteForm key={`invite-${store.id}`} storeId={store.id} />
          <Members key={`members-${store.id}`} store={store} />
          <TeamLog key={`log-${store.id}`} storeId={store.id} />
        </>
      )}
    </main>
  )
}
