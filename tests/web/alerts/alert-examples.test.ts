// The alerts screen's examples, worded by domain/alert-texts.ts at build time: the texts the screen
// showed when they were written out by hand.
import { expect, it } from 'vitest'
import { alertExamples } from '../../../src/features/alerts/alert-examples.ts'

it('are the alerts as the phone shows them', () => {
  expect(alertExamples()).toEqual({
    quiet: ['역삼점 · 판매 없음', '3시간째 결제 없음 · 평소 이 시간 약 18건'],
    deviceOffline: ['역삼점 · 단말기 연결 끊김', '‘카운터 옆 결제기’가 14:32부터 응답하지 않습니다.'],
    machineError: ['역삼점 · 세탁기 3 고장', '세탁기 3이(가) 14:32부터 고장 상태입니다 (E21).'],
    machineSilent: ['역삼점 · 기계 판매 없음', '세탁기 3 · 5시간째 판매 없음 · 같은 시간 다른 세탁기 14회'],
    paymentTerminal: ['역삼점 · 카드 단말기 이상', '14:32부터 결제 실패 3건, 그 뒤 판매가 없습니다.'],
    morningSummary: [
      '어제 매출 · 3월 15일 · 매장 3곳',
      '역삼점 412,000원 58건 (평소보다 8% 많음) · 이번 달 6,120,000원 (지난달보다 3% 많음)',
    ],
  })
})
