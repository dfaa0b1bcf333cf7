// The owner's devices screen (`/devices?store=2`, docs/product.md decision 73): add a device by name
// and see its pairing code; the list of the store's devices with what each last said; rename and
// revoke. Owners only: the route shows it for a store the user owns, and the server answers 403 to
// anyone else.
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useEffect, useId, useRef, useState } from 'react'
import type { Device, NewDeviceAnswer, Store } from '../../../contract/api.ts'
import { dayAndTime, timeOfDay } from '../../../domain/format.ts'
import { now as clockNow } from '../../figures/clock.ts'
import { request, requestJson } from '../../lib/api.ts'
import { useDocumentTitle } from '../../lib/document-title.ts'
import { useAction } from '../../lib/use-action.ts'
import { useMinuteTick } from '../../lib/use-minute-tick.ts'
import { DeviceMachines } from './device-machines.tsx'
import { deviceState, skewText } from './device-state.ts'
import { devicesKeys, devicesPath, devicesQuery } from './devices-query.ts'
import { useStateChangeTick } from './use-state-change.ts'
import './devices.css'

const when = (instant: string | null) => (instant === null ? '—' : dayAndTime(Date.parse(instant)))

function PairingCode({ pairing }: { pairing: NewDeviceAnswer }) {
  const box = useRef<HTMLDivElement>(null)
  // The code appears where the owner's eyes and a screen reader's focus go next.
  useEffect(() => box.current?.focus(), [])
  return (
    <div className="pairing" ref={box} tabIndex={-1} role="status" aria-labelledby="pairing-title">
      <p id="pairing-title">‘{pairing.name}’ 연결 코드</p>
      <p className="pairing-code" data-testid="pairing-code">
        {pairing.pairingCode}
      </p>
      <p className="pairing-expiry">{timeOfDay(Date.parse(pairing.expiresAt))}까지 한 번만 쓸 수 있습니다.</p>
      <p className="pairing-help">
        단말기에서 <code>npm run device -- pair {pairing.pairingCode}</code>를 실행하거나 단말기 설정에 이
        코드를 입력하세요.
      </p>
    </div>
  )
}

function DeviceItem({ device, storeId, now }: { device: Device; storeId: number; now: number }) {
  const queryClient = useQueryClient()
  const [renaming, setRenaming] = useState(false)
  const [name, setName] = useState(device.name)
  const renameButton = useRef<HTMLButtonElement>(null)
  const heading = useRef<HTMLHeadingElement>(null)
  const fieldId = useId()
  const refresh = () => queryClient.invalidateQueries({ queryKey: devicesKeys.store(storeId) })
  const rename = useAction(
    (next: string) =>
      request(`${devicesPath(storeId)}/${device.id}`, { method: 'PATCH', body: { name: next } }),
    async () => {
      await refresh()
      setRenaming(false)
      requestAnimationFrame(() => renameButton.current?.focus())
    },
  )
  const revoke = useAction(
    () => request(`${devicesPath(storeId)}/${device.id}`, { method: 'DELETE' }),
    async () => {
      await refresh()
      heading.current?.focus()
    },
  )
  const state = deviceState(device, now)
  const failed = rename.error ?? revoke.error

  return (
    <li className="device" data-testid="device">
      <div className="device-head">
        <h3 ref={heading} tabIndex={-1}>
          {device.name}
        </h3>
        <span
          className={`device-state device-state-${state === '연결됨' ? 'on' : state === '해제됨' ? 'revoked' : 'off'}`}
        >
          {state}
        </span>
      </div>
      <dl className="device-facts">
        <div>
          <dt>연결한 때</dt>
          <dd>{when(device.pairedAt)}</dd>
        </div>
        <div>
          <dt>마지막 연결</dt>
          <dd>{when(device.lastSeenAt)}</dd>
        </div>
        <div>
          <dt>마지막 매출</dt>
          <dd>{when(device.lastSaleAt)}</dd>
        </div>
        <div>
          <dt>대기 중</dt>
          <dd>{device.pending === null ? '—' : `${device.pending}건`}</dd>
        </div>
        <div>
          <dt>시계 차이</dt>
          <dd>{skewText(device.skewMs)}</dd>
        </div>
      </dl>
      <DeviceMachines device={device} />
      {device.revokedAt === null &&
        (renaming ? (
          <form
            className="device-actions"
            onSubmit={(event) => {
              event.preventDefault()
              rename.mutate(name.trim())
            }}
          >
            <label htmlFor={fieldId} className="visually-hidden">
              ‘{device.name}’의 새 이름
            </label>
            <input
              id={fieldId}
              value={name}
              maxLength={40}
              required
              // biome-ignore lint/a11y/noAutofocus: the field the owner just asked for.
              autoFocus
              onChange={(event) => setName(event.target.value)}
            />
            <button type="submit" disabled={rename.isPending || name.trim() === ''}>
              저장
            </button>
            <button
              type="button"
              onClick={() => {
                setRenaming(false)
                setName(device.name)
                requestAnimationFrame(() => renameButton.current?.focus())
              }}
            >
              취소
            </button>
          </form>
        ) : (
          <div className="device-actions">
            <button
              type="button"
              ref={renameButton}
              aria-label={`‘${device.name}’ 이름 바꾸기`}
              onClick={() => setRenaming(true)}
            >
              이름 바꾸기
            </button>
            <button
              type="button"
              className="device-revoke"
              aria-label={`‘${device.name}’ 해제`}
              disabled={revoke.isPending}
              onClick={() => {
                if (
                  window.confirm(
                    `‘${device.name}’ 단말기를 해제할까요? 해제한 단말기의 매출은 더 받지 않습니다.`,
                  )
                )
                  revoke.mutate(undefined)
              }}
            >
              해제
            </button>
          </div>
        ))}
      {failed && (
        <p className="device-error" role="alert">
          {failed.message}
        </p>
      )}
    </li>
  )
}

function AddDevice({ storeId }: { storeId: number }) {
  const queryClient = useQueryClient()
  const [name, setName] = useState('')
  const fieldId = useId()
  const add = useAction(
    (deviceName: string) =>
      requestJson<NewDeviceAnswer>(devicesPath(storeId), { method: 'POST', body: { name: deviceName } }),
    () => {
      setName('')
      void queryClient.invalidateQueries({ queryKey: devicesKeys.store(storeId) })
    },
  )
  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (name.trim()) add.mutate(name.trim())
  }
  return (
    <section className="devices-add" aria-labelledby="devices-add-title">
      <h2 id="devices-add-title">단말기 추가</h2>
      <form className="devices-add-form" onSubmit={submit}>
        <label htmlFor={fieldId}>단말기 이름</label>
        <input
          id={fieldId}
          value={name}
          maxLength={40}
          placeholder="예: 카운터 옆 결제기"
          onChange={(event) => setName(event.target.value)}
        />
        <button type="submit" disabled={add.isPending || name.trim() === ''}>
          추가
        </button>
      </form>
      {add.error && (
        <p className="device-error" role="alert">
          {add.error.message}
        </p>
      )}
      {add.data && <PairingCode key={add.data.id} pairing={add.data} />}
    </section>
  )
}

export function DevicesPage({
  store,
  ownedStores,
  onStoreChange,
}: {
  /** The store whose devices are shown: one the user owns, or undefined when they own none of theirs. */
  store: Store | undefined
  ownedStores: Store[]
  onStoreChange: (storeId: number) => void
}) {
  useDocumentTitle('단말기 관리')
  useMinuteTick()
  const storeFieldId = useId()
  const storeId = store?.id ?? 0
  const list = useQuery({ ...devicesQuery(storeId), enabled: store !== undefined })
  useStateChangeTick(list.data?.devices)
  const now = clockNow().getTime()

  return (
    <main className="devices">
      <h1 className="devices-title">단말기 관리</h1>
      {!store ? (
        <p className="devices-note">단말기는 매장 사장님만 관리할 수 있습니다.</p>
      ) : (
        <>
          {ownedStores.length > 1 ? (
            <p className="devices-store">
              <label htmlFor={storeFieldId}>관리할 매장</label>
              <select
                id={storeFieldId}
                value={store.id}
                onChange={(event) => onStoreChange(Number(event.target.value))}
              >
                {ownedStores.map((option) => (
                  <option key={option.id} value={option.id}>
                    {option.name}
                  </option>
                ))}
              </select>
            </p>
          ) : (
            <p className="devices-store">{store.name}</p>
          )}
          <AddDevice key={store.id} storeId={store.id} />
          <section aria-labelledby="devices-list-title">
            <h2 id="devices-list-title">단말기 목록</h2>
            {list.isPending ? (
              <p className="devices-note">불러오는 중…</p>
            ) : list.error && !list.data ? (
              <p className="device-error" role="alert">
                {list.error.message}
              </p>
            ) : list.data?.devices.length === 0 ? (
              <p className="devices-note">아직 단말기가 없습니다. 위에서 추가하세요.</p>
            ) : (
              <ul className="device-list">
                {list.data?.devices.map((device) => (
                  <DeviceItem key={device.id} device={device} storeId={store.id} now={now} />
                ))}
              </ul>
            )}
          </section>
        </>
      )}
    </main>
  )
}
