// The alerts screen (`/alerts`, docs/product.md §12, decisions 94–96): what each alert means, with an
// example; `알림 받기` (the permission is asked only when it is pressed), or how to add the app to the
// home screen on iOS, or how to allow a denied permission again; `시험 알림 보내기`; the settings of
// each store (alert-settings-card.tsx); the alerts sent and held, with their times and how each went out
// by each channel; the month's messages by channel of the stores the user owns.
// Owner and staff alike, each for themselves. The examples are worded by the functions the pushes are,
// at build time (alert-examples.ts).
import { useQuery } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import type { Alert, AlertsAnswer, Store } from '../../../contract/api.ts'
import { dayAndTime } from '../../../domain/format.ts'
import { useDocumentTitle } from '../../lib/document-title.ts'
import { alertKinds } from './alert-kinds.ts'
import { StoreSettings } from './alert-settings-card.tsx'
import { alertSettingsQuery, alertsListQuery } from './alerts-queries.ts'
import { isSubscribed, pushSupport, sendTestAlert, turnOnAlerts } from './push-subscription.ts'
import './alerts.css'

type Permission = NotificationPermission | 'unsupported' | 'ios-browser'

function currentPermission(): Permission {
  const support = pushSupport()
  return support === 'supported' ? Notification.permission : support
}

function Receive() {
  const [permission, setPermission] = useState<Permission>(currentPermission)
  const [subscribed, setSubscribed] = useState(false)
  const [busy, setBusy] = useState(false)
  const [note, setNote] = useState<{ text: string; error: boolean } | null>(null)
  useEffect(() => {
    if (permission === 'granted') void isSubscribed().then(setSubscribed, () => setSubscribed(false))
  }, [permission])
  const run = (action: () => Promise<void>) => {
    setBusy(true)
    setNote(null)
    action()
      .catch((error: unknown) =>
        setNote({ text: error instanceof Error ? error.message : String(error), error: true }),
      )
      .finally(() => setBusy(false))
  }
  const turnOn = () =>
    run(async () => {
      try {
        const next = await turnOnAlerts()
        setPermission(next)
        setSubscribed(next === 'granted')
      } catch (error) {
        throw new Error(`알림을 켜지 못했습니다. 잠시 후 다시 시도해 주세요. (${(error as Error).message})`)
      }
    })
  const test = () =>
    run(async () => {
      const { subscriptions } = await sendTestAlert()
      setNote({
        text:
          subscriptions === 0
            ? '알림을 받을 기기가 없습니다. 먼저 알림 받기를 눌러 주세요.'
            : `시험 알림을 보냈습니다 (기기 ${subscriptions}대).`,
        error: false,
      })
    })

  return (
    <section className="alerts-card" aria-labelledby="alerts-receive-title">
      <h2 id="alerts-receive-title">이 기기에서 알림 받기</h2>
      {permission === 'unsupported' ? (
        <p className="alerts-note">
          이 브라우저는 알림을 받을 수 없습니다. 최신 Chrome, Edge, Firefox, Safari에서 열어 주세요.
        </p>
      ) : permission === 'ios-browser' ? (
        <div className="alerts-help" data-testid="ios-help">
          <p>iPhone과 iPad에서는 홈 화면에 추가한 앱에서만 알림을 받을 수 있습니다 (iOS 16.4 이상).</p>
          <ol>
            <li>Safari 아래쪽의 공유 버튼(네모에 위쪽 화살표)을 누릅니다.</li>
            <li>‘홈 화면에 추가’를 고릅니다.</li>
            <li>홈 화면의 ‘빨래방 매출’을 열고, 이 화면에서 알림 받기를 누릅니다.</li>
          </ol>
        </div>
      ) : permission === 'denied' ? (
        <div className="alerts-help" data-testid="denied-help">
          <p>이 기기에서 알림이 차단되어 있습니다. 다시 허용하려면:</p>
          <ul>
            <li>
              브라우저: 주소창 왼쪽의 사이트 정보(자물쇠) 버튼 → 알림 → 허용으로 바꾼 뒤 이 화면을 새로
              고칩니다.
            </li>
            <li>설치한 앱: 기기의 설정 → 알림 → ‘빨래방 매출’에서 알림을 허용합니다.</li>
          </ul>
        </div>
      ) : permission === 'granted' && subscribed ? (
        <p className="alerts-note">이 기기에서 알림을 받고 있습니다.</p>
      ) : (
        <>
          <p className="alerts-note">
            버튼을 누르면 브라우저가 알림을 허용할지 묻습니다. 허용하면 앱을 닫아 두어도 알림이 옵니다.
          </p>
          <button type="button" className="alerts-primary" disabled={busy} onClick={turnOn}>
            알림 받기
          </button>
        </>
      )}
      {permission !== 'unsupported' && permission !== 'ios-browser' && (
        <p>
          <button type="button" className="alerts-secondary" disabled={busy} onClick={test}>
            시험 알림 보내기
          </button>
        </p>
      )}
      {note && (
        <p className={note.error ? 'alerts-error' : 'alerts-note'} role={note.error ? 'alert' : 'status'}>
          {note.text}
        </p>
      )}
    </section>
  )
}

const channelNames = { push: '푸시', kakao: '알림톡' }
const statusNames = {
  pending: '보내기 전',
  sent: '전달함',
  fallbackSms: '문자로 대신 보냄',
  failed: '보내지 못함',
  capped: '하루 한도가 넘어 목록에만 남김',
  unknown: '보냈는지 알 수 없음',
}
/** The provider's final word on a 알림톡 it took (decision 251). */
const reportNames = {
  delivered: '전달됨',
  deliveredSms: '문자로 전달됨',
  undelivered: '전달 안 됨',
  noReport: '확인 안 됨',
}

type Delivery = Alert['deliveries'][number]

/** One channel's words: a 알림톡 the provider took is `보냄`, its report after it (`보냄 (전달됨)`). */
const deliveryText = ({ channel, status, report }: Delivery) => {
  const done = channel === 'kakao' && status === 'sent' ? '보냄' : statusNames[status]
  return `${channelNames[channel]} ${done}${report ? ` (${reportNames[report]})` : ''}`
}

/** How the alert went out by each channel (decisions 233, 250, 251): `푸시 전달함 · 알림톡 보냄 (전달됨)`. */
const deliveriesText = (alert: Alert) => alert.deliveries.map(deliveryText).join(' · ')

/** This month's messages by channel of each store the user owns (decision 235). */
function MessageCounts({ counts, stores }: { counts: AlertsAnswer['messageCounts']; stores: Store[] }) {
  if (counts.length === 0) return null
  return (
    <section aria-labelledby="alerts-counts-title" data-testid="message-counts">
      <h2 id="alerts-counts-title">이번 달 보낸 알림</h2>
      <ul className="alerts-list">
        {counts.map((count) => (
          <li key={count.storeId} className="alerts-note">
            {stores.find((store) => store.id === count.storeId)?.name ?? `매장 ${count.storeId}`} ·{' '}
            {count.month.slice(5).replace(/^0/, '')}월: 푸시 {count.push}건 · 알림톡 {count.kakao}건 · 문자{' '}
            {count.sms}건
          </li>
        ))}
      </ul>
    </section>
  )
}

function AlertItem({ alert, stores }: { alert: Alert; stores: Store[] }) {
  const store = stores.find((option) => option.id === alert.storeId)
  const deliveries = deliveriesText(alert)
  return (
    <li className="alerts-item" data-testid="alert">
      <p className="alerts-item-head">
        <strong>{alert.title}</strong>
        <span className={`alerts-state alerts-state-${alert.state}`}>
          {alert.state === 'sent' ? '보냄' : '보류 (방해 금지 시간)'}
        </span>
      </p>
      <p>{alert.body}</p>
      <p className="alerts-note">
        {store ? `${store.name} · ` : ''}
        <time dateTime={alert.createdAt}>{dayAndTime(Date.parse(alert.createdAt))}</time>
        {alert.sentAt && alert.sentAt !== alert.createdAt
          ? ` · 보냄 ${dayAndTime(Date.parse(alert.sentAt))}`
          : ''}
      </p>
      {deliveries && (
        <p className="alerts-note" data-testid="alert-deliveries">
          {deliveries}
        </p>
      )}
    </li>
  )
}

export function AlertsPage({ stores }: { stores: Store[] }) {
  useDocumentTitle('알림')
  const settings = useQuery(alertSettingsQuery)
  const list = useQuery(alertsListQuery)
  return (
    <main className="alerts">
      <h1 className="alerts-title">알림</h1>
      <Receive />
      <section aria-labelledby="alerts-kinds-title">
        <h2 id="alerts-kinds-title">알림 종류</h2>
        <ul className="alerts-kinds">
          {alertKinds.map(({ kind, name, meaning, example }) => (
            <li key={kind} className="alerts-card">
              <h3>{name}</h3>
              <p>{meaning}</p>
              <figure className="alerts-example">
                <figcaption>예시</figcaption>
                <p>
                  <strong>{example[0]}</strong>
                </p>
                <p>{example[1]}</p>
              </figure>
            </li>
          ))}
        </ul>
        <p className="alerts-note">
          알림은 매장 하나에 하루 3개, 모두 합쳐 하루 6개까지만 갑니다 (아침 요약은 빼고). 방해 금지 시간에
          생긴 알림은 아래 목록에만 남고, 끝날 때까지 그 상황이 이어지면 그때 한 번 알려 드립니다. 알림톡과
          문자는 한 사람에게 하루 20개까지 가고, 넘으면 목록에만 남습니다.
        </p>
      </section>
      <section aria-labelledby="alerts-settings-title">
        <h2 id="alerts-settings-title">설정</h2>
        {settings.isPending ? (
          <p className="alerts-note">불러오는 중…</p>
        ) : settings.error && !settings.data ? (
          <p className="alerts-error" role="alert">
            {settings.error.message}
          </p>
        ) : (
          settings.data?.stores.map((entry) => (
            <StoreSettings
              key={`${entry.storeId}-${entry.quietHours?.start}-${entry.quietHours?.end}`}
              settings={entry}
              kakaoKinds={settings.data.kakaoKinds ?? []}
              store={stores.find((store) => store.id === entry.storeId)}
            />
          ))
        )}
      </section>
      {list.data?.messageCounts && <MessageCounts counts={list.data.messageCounts} stores={stores} />}
      <section aria-labelledby="alerts-list-title">
        <h2 id="alerts-list-title">보낸 알림과 보류한 알림</h2>
        {list.isPending ? (
          <p className="alerts-note">불러오는 중…</p>
        ) : list.error && !list.data ? (
          <p className="alerts-error" role="alert">
            {list.error.message}
          </p>
        ) : list.data?.alerts.length === 0 ? (
          <p className="alerts-note">최근 30일 동안 보낸 알림이 없습니다.</p>
        ) : (
          <ul className="alerts-list">
            {list.data?.alerts.map((alert) => (
              <AlertItem key={alert.id} alert={alert} stores={stores} />
            ))}
          </ul>
        )}
      </section>
    </main>
  )
}
