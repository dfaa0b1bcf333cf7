// One member on the team screen: name, role, masked number, whether money reaches them, last seen,
// the alerts they have on; the owner changes their name, role and money setting in place, or removes
// them after a confirm that says what they lose (docs/product.md §15).
import { useQueryClient } from '@tanstack/react-query'
import { useId, useRef, useState } from 'react'
import type { Member, MemberChange, Role } from '../../../contract/team.ts'
import { dayAndTime } from '../../../domain/format.ts'
import { request } from '../../lib/api.ts'
import { page } from '../../lib/page.ts'
import { useAction } from '../../lib/use-action.ts'
import { teamKeys, teamPath } from './team-query.ts'
import { alertKindNames, removalQuestion, roleNames, seesMoney } from './team-text.ts'

export const when = (instant: string | null) => (instant === null ? '—' : dayAndTime(Date.parse(instant)))

/** A masked number as a screen reader should say it: its last four digits, not seven stars. */
export const maskedLabel = (phone: string) => `끝자리 ${phone.slice(-4)}`

/** A masked number: shown as the server masks it, said by its last four digits. */
export function MaskedPhone({ phone }: { phone: string }) {
  return (
    <>
      <span aria-hidden="true">{phone}</span>
      <span className="visually-hidden">{maskedLabel(phone)}</span>
    </>
  )
}

/** The role select and, for staff, whether won amounts reach them: shared by the invite and the change. */
export function RoleFields({
  role,
  showsMoney,
  onRole,
  onShowsMoney,
  label,
}: {
  role: Role
  showsMoney: boolean
  onRole: (role: Role) => void
  onShowsMoney: (showsMoney: boolean) => void
  /** Who the fields are about, for their labels (`최알바 역할`). */
  label?: string
}) {
  const roleId = useId()
  const moneyId = useId()
  return (
    <>
      <span className="team-field">
        <label htmlFor={roleId}>{label ? `${label} 역할` : '역할'}</label>
        <select id={roleId} value={role} onChange={(event) => onRole(event.target.value as Role)}>
          {(['staff', 'manager', 'owner'] as const).map((option) => (
            <option key={option} value={option}>
              {roleNames[option]}
            </option>
          ))}
        </select>
      </span>
      {role === 'staff' && (
        <span className="team-check">
          <input
            id={moneyId}
            type="checkbox"
            checked={showsMoney}
            onChange={(event) => onShowsMoney(event.target.checked)}
          />
          <label htmlFor={moneyId}>매출 금액 보기</label>
        </span>
      )}
    </>
  )
}

function ChangeForm({ member, storeId, done }: { member: Member; storeId: number; done: () => void }) {
  const queryClient = useQueryClient()
  const [name, setName] = useState(member.name)
  const [role, setRole] = useState<Role>(member.role)
  const [showsMoney, setShowsMoney] = useState(member.showsMoney)
  const nameId = useId()
  const change = useAction(
    (body: MemberChange) =>
      request(`${teamPath(storeId)}/members/${member.userId}`, { method: 'PATCH', body }),
    async () => {
      await queryClient.invalidateQueries({ queryKey: teamKeys.store(storeId) })
      done()
    },
  )
  const body: MemberChange = {
    ...(name.trim() !== member.name ? { name: name.trim() } : {}),
    ...(role !== member.role ? { role } : {}),
    ...(showsMoney !== member.showsMoney ? { showsMoney } : {}),
  }
  return (
    <form
      className="team-form"
      onSubmit={(event) => {
        event.preventDefault()
        change.mutate(body)
      }}
    >
      <span className="team-field">
        <label htmlFor={nameId}>{`‘${member.name}’의 이름`}</label>
        <input
          id={nameId}
          value={name}
          maxLength={40}
          required
          // biome-ignore lint/a11y/noAutofocus: the field the owner just asked for.
          autoFocus
          onChange={(event) => setName(event.target.value)}
        />
      </span>
      <RoleFields
        role={role}
        showsMoney={showsMoney}
        onRole={setRole}
        onShowsMoney={setShowsMoney}
        label={`‘${member.name}’`}
      />
      <span className="team-buttons">
        <button
          type="submit"
          disabled={change.isPending || name.trim() === '' || Object.keys(body).length === 0}
        >
          저장
        </button>
        <button type="button" onClick={done}>
          취소
        </button>
      </span>
      {change.error && (
        <p className="team-error" role="alert">
          {change.error.message}
        </p>
      )}
    </form>
  )
}

export function MemberItem({
  member,
  storeId,
  storeName,
}: {
  member: Member
  storeId: number
  storeName: string
}) {
  const queryClient = useQueryClient()
  const [changing, setChanging] = useState(false)
  const changeButton = useRef<HTMLButtonElement>(null)
  const remove = useAction(
    () => request(`${teamPath(storeId)}/members/${member.userId}`, { method: 'DELETE' }),
    () => queryClient.invalidateQueries({ queryKey: teamKeys.store(storeId) }),
  )
  const money = seesMoney(member)
  return (
    <li className="member" data-testid="member">
      <div className="member-head">
        <h3>{member.name}</h3>
        <span className={`member-role member-role-${member.role}`}>{roleNames[member.role]}</span>
      </div>
      <dl className="member-facts">
        <div>
          <dt>번호</dt>
          <dd>
            <MaskedPhone phone={member.phone} />
          </dd>
        </div>
        <div>
          <dt>매출 금액</dt>
          <dd>{money ? '보임' : '숨김'}</dd>
        </div>
        <div>
          <dt>마지막 접속</dt>
          <dd>{when(member.lastSeenAt)}</dd>
        </div>
        <div className="member-alerts">
          <dt>받는 알림</dt>
          <dd>
            {member.alerts.length === 0
              ? '없음'
              : member.alerts.map((kind) => alertKindNames[kind]).join(', ')}
          </dd>
        </div>
      </dl>
      {changing ? (
        <ChangeForm
          member={member}
          storeId={storeId}
          done={() => {
            setChanging(false)
            requestAnimationFrame(() => changeButton.current?.focus())
          }}
        />
      ) : (
        <div className="team-buttons">
          <button
            type="button"
            ref={changeButton}
            aria-label={`‘${member.name}’ 변경`}
            onClick={() => setChanging(true)}
          >
            변경
          </button>
          <button
            type="button"
            className="team-remove"
            aria-label={`‘${member.name}’ 내보내기`}
            disabled={remove.isPending}
            onClick={() => {
              if (page.confirm(removalQuestion(member, storeName))) remove.mutate(undefined)
            }}
          >
            내보내기
          </button>
        </div>
      )}
      {remove.error && (
        <p className="team-error" role="alert">
          {remove.error.message}
        </p>
      )}
    </li>
  )
}
