// The team screen's words (docs/product.md §15): the roles, what a removed member loses, a log line.
import type { AlertKind } from '../../../contract/api.ts'
import type { Member, Role, TeamAction } from '../../../contract/team.ts'

export const roleNames: Record<Role, string> = { owner: '주인', manager: '점장', staff: '직원' }

/** The alert kinds by the names the alerts screen gives them. */
export const alertKindNames: Record<AlertKind, string> = {
  quiet: '판매 없음',
  deviceOffline: '단말기 연결 끊김',
  machineError: '기계 고장',
  machineSilent: '기계 판매 없음',
  paymentTerminal: '카드 단말기 이상',
  morningSummary: '아침 요약',
}

/** Whether won amounts reach the member: always for an owner or a manager, for staff unless turned off. */
export const seesMoney = (member: Pick<Member, 'role' | 'showsMoney'>) =>
  member.role !== 'staff' || member.showsMoney

/** What the member can no longer see or do in the store once removed, by their role (§15's roles). */
export function losses(member: Pick<Member, 'role' | 'showsMoney'>): string[] {
  if (member.role === 'owner') return ['매출', '기계와 단말기', '알림', '팀 관리', '세금 신고 자료']
  if (member.role === 'manager') return ['매출', '기계와 단말기', '알림']
  return seesMoney(member) ? ['매출 금액', '기계·단말기 상태', '알림'] : ['기계·단말기 상태', '알림']
}

/** The removal's confirm: whom, what they lose, and that their device forgets the store's kept figures. */
export const removalQuestion = (member: Pick<Member, 'name' | 'role' | 'showsMoney'>, storeName: string) =>
  `‘${member.name}’ 님을 ${storeName} 팀에서 내보낼까요?\n` +
  `이 매장에서 더 볼 수 없게 되는 것: ${losses(member).join(', ')}.\n` +
  '그 사람의 기기에 저장된 이 매장의 매출도 지워집니다.'

export const actionNames: Record<TeamAction, string> = {
  invited: '초대',
  inviteCancelled: '초대 취소',
  joined: '합류',
  changed: '변경',
  removed: '내보냄',
}
