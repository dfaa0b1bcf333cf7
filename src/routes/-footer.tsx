// The signed-in screens' footer: what the figures are (before card and service fees) and how to reach support.
import { config } from '../config.ts'

export function Footer() {
  return (
    <footer className="app-footer">
      <p>표시된 매출은 카드사 수수료와 서비스 이용 수수료를 빼기 전 금액입니다.</p>
      <p>
        고객센터 <a href={`tel:${config.supportPhone.replace(/[^0-9+]/g, '')}`}>{config.supportPhone}</a>
        {' · '}
        <a href={`mailto:${config.supportEmail}`}>{config.supportEmail}</a>
      </p>
    </footer>
  )
}
