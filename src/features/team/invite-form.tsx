// Inviting a number to the store with a role (a name and the money setting optional): the server sends
// it one SMS naming the store and the app, and its next sign-in within 7 days makes the store its own.
// Below it the pending invites, each with its expiry and a cancel (docs/product.md §15).
import { useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useId, useState } from 'react'
import type { Invite, InviteRequest, Role } from '../../../contract/team.ts'
import { request, requestJson } from '../../lib/api.ts'
import { useAction } from '../../lib/use-action.ts'
import { MaskedPhone, maskedLabel, RoleFields, when } from './member-item.tsx'
import { teamKeys, teamPath } from './team-query.ts'
import { roleNames } from './team-text.ts'

export function InviteForm({ storeId }: { storeId: number }) {
  const queryClient = useQueryClient()
  const [phone, setPhone] = useState('')
  const [name, setName] = useState('')
  const [role, setRole] = useState<Role>('staff')
  const [showsMoney, setShowsMoney] = useState(true)
  const phoneId = useId()
  const nameId = useId()
  const invite = useAction(
    (body: InviteRequest) => requestJson<Invite>(`${teamPath(storeId)}/invites`, { method: 'POST', body }),
    async () => {
      setPhone('')
      setName('')
      await queryClient.invalidateQueries({ queryKey: teamKeys.store(storeId) })
    },
  )
  // Sent as typed: the server reads it by the one phone rule (contract/phone.ts, which only the login
  // screen's chunk carries) and says in Korean what is wrong with it.
  const number = phone.trim()
  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (!number) return
    invite.mutate({
      phone: number,
      role,
      ...(name.trim() ? { name: name.trim() } : {}),
      ...(role === 'staff' ? { showsMoney } : {}),
    })
  }
  return (
    <section className="team-card" aria-labelledby="team-invite-title">
      <h2 id="team-invite-title">팀원 초대</h2>
      <form className="team-form" onSubmit={submit}>
        <span className="team-field">
          <label htmlFor={phoneId}>휴대폰 번호</label>
          <input
            id={phoneId}
            type="tel"
            inputMode="numeric"
            autoComplete="off"
            placeholder="01012345678"
            value={phone}
            onChange={(event) => setPhone(event.target.value)}
          />
        </span>
        <span className="team-field">
          <label htmlFor={nameId}>이름 (선택)</label>
          <input id={nameId} value={name} maxLength={40} onChange={(event) => setName(event.target.value)} />
        </span>
        <RoleFields role={role} showsMoney={showsMoney} onRole={setRole} onShowsMoney={setShowsMoney} />
        <span className="team-buttons">
          <button type="submit" disabled={invite.isPending || !number}>
            초대
          </button>
        </span>
      </form>
      <p className="team-note">
        초대 문자에는 인증번호가 없습니다. 7일 안에 그 번호로 로그인하면 이 매장이 보입니다.
      </p>
      {invite.error && (
        <p className="team-error" role="alert">
          {invite.error.message}
        </p>
      )}
      {invite.data && !invite.error && (
        <p className="team-done" role="status">
          {invite.data.phone}({roleNames[invite.data.role]})에게 초대 문자를 보냈습니다.{' '}
          {when(invite.data.expiresAt)}까지 유효합니다.
        </p>
      )}
    </section>
  )
}

function InviteItem({ invite, storeId }: { invite: Invite; storeId: number }) {
  const queryClient = useQueryClient()
  const cancel = useAction(
    () => request(`${teamPath(storeId)}/invites/${invite.id}`, { method: 'DELETE' }),
    () => queryClient.invalidateQueries({ queryKey: teamKeys.store(storeId) }),
  )
  return (
    <li className="invite" data-testid="invite">
      <span>
        <MaskedPhone phone={invite.phone} />
      </span>
      <span>{roleNames[invite.role]}</span>
      <span>{when(invite.expiresAt)}까지</span>
      <button
        type="button"
        aria-label={`${maskedLabel(invite.phone)} 초대 취소`}
        disabled={cancel.isPending}
        onClick={() => cancel.mutate(undefined)}
      >
        초대 취소
      </button>
      {cancel.error && (
        <p className="team-error" role="alert">
          {cancel.error.message}
        </p>
      )}
    </li>
  )
}

export function PendingInvites({ invites, storeId }: { invites: Invite[]; storeId: number }) {
  return (
    <section aria-labelledby="team-invites-title">
      <h2 id="team-invites-title">대기 중인 초대</h2>
      {invites.length === 0 ? (
        <p className="team-note">대기 중인 초대가 없습니다.</p>
      ) : (
        <ul className="invite-list">
          {invites.map((invite) => (
            <InviteItem key={invite.id} invite={invite} storeId={storeId} />
          ))}
        </ul>
      )}
    </section>
  )
}
