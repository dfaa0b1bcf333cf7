// A store's alert settings on the alerts screen (docs/product.md §12): each kind on or off and, where
// the server sends it by 알림톡, by which channel (push, 알림톡, both; decision 230) and whether a 알림톡
// that cannot be delivered goes as SMS; the outage's minutes; quiet hours; a 24-hour snooze.
import { useQueryClient } from '@tanstack/react-query'
import { useId, useState } from 'react'
import type { AlertChannel } from '../../../contract/alert-channels.ts'
import type {
  AlertKind,
  AlertSettingsAnswer,
  AlertSettingsRequest,
  Store,
  StoreAlertSettings,
} from '../../../contract/api.ts'
import { quietAfterText } from '../../../domain/alert-texts.ts'
import { dayAndTime } from '../../../domain/format.ts'
import { requestJson } from '../../lib/api.ts'
import { alertKinds } from './alert-kinds.ts'
import { alertSettingsPath, alertsKeys } from './alerts-queries.ts'

const channelChoices: [AlertChannel, string][] = [
  ['push', '푸시'],
  ['kakao', '알림톡'],
  ['both', '푸시와 알림톡'],
]

/** A kind's channel, where the server can send it by 알림톡. */
function ChannelChoice({
  label,
  value,
  onChange,
}: {
  label: string
  value: AlertChannel
  onChange: (channel: AlertChannel) => void
}) {
  const id = useId()
  return (
    <span className="alerts-channel">
      <label htmlFor={id} className="visually-hidden">
        {label}
      </label>
      <select id={id} value={value} onChange={(event) => onChange(event.target.value as AlertChannel)}>
        {channelChoices.map(([channel, name]) => (
          <option key={channel} value={channel}>
            {name}
          </option>
        ))}
      </select>
    </span>
  )
}

/** The choices of how long a store's devices are unheard before the push (decision 180: 5–30, default 10). */
export const offlineMinuteChoices = [5, 10, 15, 20, 30]

function OfflineMinutes({
  value,
  storeName,
  onChange,
}: {
  value: number
  storeName: string
  onChange: (minutes: number) => void
}) {
  const id = useId()
  const choices = offlineMinuteChoices.includes(value)
    ? offlineMinuteChoices
    : [...offlineMinuteChoices, value].sort((a, b) => a - b)
  return (
    <p className="alerts-check">
      <label htmlFor={id}>
        <span className="visually-hidden">{storeName} </span>단말기 연결 끊김 알림까지
      </label>{' '}
      <select id={id} value={value} onChange={(event) => onChange(Number(event.target.value))}>
        {choices.map((minutes) => (
          <option key={minutes} value={minutes}>
            {minutes}분{minutes === 10 ? ' (기본)' : ''}
          </option>
        ))}
      </select>
    </p>
  )
}

export function StoreSettings({
  settings,
  store,
  kakaoKinds,
}: {
  settings: StoreAlertSettings
  store: Store | undefined
  kakaoKinds: string[]
}) {
  const queryClient = useQueryClient()
  const id = useId()
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const [quietStart, setQuietStart] = useState(settings.quietHours?.start ?? '23:00')
  const [quietEnd, setQuietEnd] = useState(settings.quietHours?.end ?? '07:00')
  const change = (body: Omit<AlertSettingsRequest, 'storeId'>) => {
    setBusy(true)
    setError(null)
    requestJson<AlertSettingsAnswer>(alertSettingsPath, {
      method: 'PUT',
      body: { storeId: settings.storeId, ...body },
    })
      .then((answer) => queryClient.setQueryData(alertsKeys.settings(), answer))
      .catch((failure: unknown) => setError(failure instanceof Error ? failure.message : String(failure)))
      .finally(() => setBusy(false))
  }
  const name = store?.name ?? `매장 ${settings.storeId}`
  return (
    <fieldset className="alerts-store" data-testid="alert-settings" disabled={busy}>
      <legend>{name}</legend>
      {alertKinds.map(({ kind, name: kindName }) => (
        <p key={kind} className="alerts-kind">
          <label className="alerts-check">
            <input
              type="checkbox"
              checked={settings[kind]}
              onChange={(event) => change({ [kind]: event.target.checked })}
            />
            {kindName}
          </label>
          {settings[kind] && kakaoKinds.includes(kind) && (
            <ChannelChoice
              label={`${name} ${kindName} 받는 방법`}
              value={settings.channels?.[kind as AlertKind] ?? 'push'}
              onChange={(channel) => change({ channels: { [kind]: channel } })}
            />
          )}
        </p>
      ))}
      {kakaoKinds.length > 0 && (
        <label className="alerts-check">
          <input
            type="checkbox"
            checked={settings.smsFallback ?? true}
            onChange={(event) => change({ smsFallback: event.target.checked })}
          />
          알림톡을 받을 수 없으면 문자로 받기
        </label>
      )}
      {settings.deviceOffline && (
        <OfflineMinutes
          value={settings.deviceOfflineMinutes}
          storeName={name}
          onChange={(minutes) => change({ deviceOfflineMinutes: minutes })}
        />
      )}
      {settings.quietAfter !== undefined && (
        <p className="alerts-note">{quietAfterText(settings.quietAfter)}</p>
      )}
      <div className="alerts-quiet">
        <label className="alerts-check">
          <input
            type="checkbox"
            checked={settings.quietHours !== null}
            onChange={(event) =>
              change({ quietHours: event.target.checked ? { start: quietStart, end: quietEnd } : null })
            }
          />
          방해 금지 시간 (한국 시간)
        </label>
        {settings.quietHours && (
          <span className="alerts-times">
            <label htmlFor={`${id}-start`} className="visually-hidden">
              {name} 방해 금지 시작
            </label>
            <input
              id={`${id}-start`}
              type="time"
              value={quietStart}
              onChange={(event) => setQuietStart(event.target.value)}
              onBlur={() =>
                quietStart !== settings.quietHours?.start &&
                change({ quietHours: { start: quietStart, end: quietEnd } })
              }
            />
            <span aria-hidden="true">~</span>
            <label htmlFor={`${id}-end`} className="visually-hidden">
              {name} 방해 금지 끝
            </label>
            <input
              id={`${id}-end`}
              type="time"
              value={quietEnd}
              onChange={(event) => setQuietEnd(event.target.value)}
              onBlur={() =>
                quietEnd !== settings.quietHours?.end &&
                change({ quietHours: { start: quietStart, end: quietEnd } })
              }
            />
          </span>
        )}
      </div>
      <p className="alerts-snooze">
        {settings.snoozedUntil ? (
          <>
            <span>{dayAndTime(Date.parse(settings.snoozedUntil))}까지 알림을 끔</span>{' '}
            <button type="button" className="alerts-secondary" onClick={() => change({ snooze: false })}>
              다시 켜기
            </button>
          </>
        ) : (
          <button type="button" className="alerts-secondary" onClick={() => change({ snooze: true })}>
            24시간 알림 끄기
          </button>
        )}
      </p>
      {error && (
        <p className="alerts-error" role="alert">
          {error}
        </p>
      )}
    </fieldset>
  )
}
