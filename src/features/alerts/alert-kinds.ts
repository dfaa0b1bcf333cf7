// The alert kinds as the alerts screen tells them: each one's name, what it means, and an example as
// the phone shows it (worded at build time, alert-examples.ts).
import type { AlertKind } from '../../../contract/api.ts'

/** Each kind: its name, what it means, and an example as the phone shows it (worded at build time). */
export const alertKinds: { kind: AlertKind; name: string; meaning: string; example: [string, string] }[] = [
  {
    kind: 'quiet',
    name: '판매 없음',
    meaning:
      '평소라면 판매가 있었을 시간 동안 판매가 없으면 알려 드립니다. 카드 단말기나 동전 교환기 고장을 그날 바로 알 수 있습니다. 판매가 다시 시작되면 같은 알림이 ‘다시 판매 시작’으로 바뀝니다.',
    example: __ALERT_EXAMPLES__.quiet,
  },
  {
    kind: 'deviceOffline',
    name: '단말기 연결 끊김',
    meaning:
      '매장 단말기가 정한 시간(기본 10분) 넘게 응답하지 않으면 알려 드립니다. 앱에는 3분이 지나면 ‘연결 끊김’으로 보입니다. 매장의 단말기가 여럿 끊겨도 알림은 하나이고, 다시 연결되면 같은 알림이 ‘다시 연결됨’과 밀린 판매 건수로 바뀝니다. 1시간에 3번 넘게 끊기면 ‘연결이 불안정합니다’ 알림 하나로 알립니다.',
    example: __ALERT_EXAMPLES__.deviceOffline,
  },
  {
    kind: 'machineError',
    name: '기계 고장',
    meaning:
      '세탁기나 건조기가 고장 상태를 보내면, 다음 신호로 한 번 더 확인한 뒤 2분 안에 알려 드립니다. 고친 뒤에는 같은 알림이 ‘정상’으로 바뀝니다.',
    example: __ALERT_EXAMPLES__.machineError,
  },
  {
    kind: 'machineSilent',
    name: '기계 판매 없음',
    meaning:
      '같은 종류의 다른 기계는 팔리는데 한 기계만 오래 판매가 없으면 알려 드립니다. 매장 전체 매출로는 보이지 않는 멈춘 기계를 찾아 줍니다.',
    example: __ALERT_EXAMPLES__.machineSilent,
  },
  {
    kind: 'paymentTerminal',
    name: '카드 단말기 이상',
    meaning:
      '카드 단말기가 연속 두 번 고장을 알리거나, 결제 실패가 3건 있은 뒤 10분 동안 판매가 없으면 3분 안에 알려 드립니다.',
    example: __ALERT_EXAMPLES__.paymentTerminal,
  },
  {
    kind: 'morningSummary',
    name: '아침 요약',
    meaning:
      '매일 오전 9시 5분에 어제 매출과 건수를 평소 같은 요일과, 이번 달을 지난달 같은 때와 견주어 알려 드립니다. 모든 매장을 알림 하나에 담습니다.',
    example: __ALERT_EXAMPLES__.morningSummary,
  },
]
