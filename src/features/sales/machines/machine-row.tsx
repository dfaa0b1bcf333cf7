// One machine of the machines section: its name and kind, its state, its month revenue and turns as
// plain CSS bars (a picture for the eye; the numbers beside them and the bars' labels for everyone),
// its last sale and today's revenue; an owner renames it in place (PATCH, owners only).
import { useQueryClient } from '@tanstack/react-query'
import { useEffect, useId, useRef, useState } from 'react'
import type { Machine } from '../../../../contract/machines.ts'
import { salesCount, won } from '../../../../domain/format.ts'
import { kindNames } from '../../../../domain/machines.ts'
import { request } from '../../../lib/api.ts'
import { usageKeys } from '../../../lib/usage-keys.ts'
import { agoText, barPercent, stateText } from './machine-text.ts'
import { machinesPath } from './machines-query.ts'

export function MachineRow({
  storeId,
  machine,
  month,
  maxSum,
  maxCount,
  now,
  isCurrentMonth,
  owner,
  silent,
}: {
  storeId: number
  machine: Machine
  month: number
  /** The largest month sum and turns of the store's machines: the full bars. */
  maxSum: number
  maxCount: number
  now: number
  isCurrentMonth: boolean
  owner: boolean
  /** A machine gone silent by the machine-silent rule (machine-text.ts silentMachineNames): shown as `조용함`. */
  silent?: boolean
}) {
  const [renaming, setRenaming] = useState(false)
  const renameButton = useRef<HTMLButtonElement>(null)
  // Back on the button that opened the form, for a keyboard or screen reader user: once the button is
  // there again (after the render that closes the form; a frame's timer could come before it).
  const wasRenaming = useRef(false)
  useEffect(() => {
    if (wasRenaming.current && !renaming) renameButton.current?.focus()
    wasRenaming.current = renaming
  }, [renaming])
  const closeRename = () => setRenaming(false)
  const state = stateText(machine)
  const { name } = machine
  return (
    <li className="machine" data-testid="machine" data-machine={machine.machine}>
      <div className="machine-head">
        {renaming ? (
          <RenameForm storeId={storeId} machine={machine} onDone={closeRename} />
        ) : (
          <>
            <h3 className="machine-name">{name}</h3>
            <span className="machine-kind">{kindNames[machine.kind] ?? kindNames.other}</span>
            {state && (
              <span className={`machine-state machine-state-${machine.state}`} data-testid="machine-state">
                {state}
              </span>
            )}
            {silent && (
              <span className="machine-silent" data-testid="machine-silent">
                조용함
              </span>
            )}
            {owner && (
              <button
                type="button"
                ref={renameButton}
                className="machine-rename"
                aria-label={`‘${name}’ 이름 바꾸기`}
                onClick={() => setRenaming(true)}
              >
                이름 바꾸기
              </button>
            )}
          </>
        )}
      </div>
      <div className="machine-bars">
        {machine.month.sum !== undefined && (
          <>
            <span className="machine-bar-label">매출</span>
            <span
              className="machine-bar machine-bar-sum"
              role="img"
              aria-label={`${name} ${month}월 매출 ${won(machine.month.sum)}`}
              data-testid="machine-sum-bar"
            >
              <span style={{ width: `${barPercent(machine.month.sum, maxSum)}%` }} />
            </span>
            <span className="machine-bar-value" data-testid="machine-sum">
              {won(machine.month.sum)}
            </span>
          </>
        )}
        <span className="machine-bar-label">사용</span>
        <span
          className="machine-bar machine-bar-count"
          role="img"
          aria-label={`${name} ${month}월 사용 ${machine.month.count}회`}
          data-testid="machine-count-bar"
        >
          <span style={{ width: `${barPercent(machine.month.count, maxCount)}%` }} />
        </span>
        <span className="machine-bar-value">{machine.month.count}회</span>
      </div>
      <p className="machine-facts">
        <span>마지막 판매 {machine.lastSaleAt ? agoText(machine.lastSaleAt, now) : '없음'}</span>
        {isCurrentMonth && (
          <span data-testid="machine-today">
            오늘{' '}
            {machine.today.sum === undefined
              ? salesCount(machine.today.count)
              : `${won(machine.today.sum)} (${salesCount(machine.today.count)})`}
          </span>
        )}
        {machine.refunds.count > 0 && (
          <span className="machine-refunds">
            환불 {machine.refunds.count}건
            {machine.refunds.sum === undefined ? '' : ` ${won(machine.refunds.sum)}`}
          </span>
        )}
      </p>
    </li>
  )
}

/** The owner's new name for a machine, in place of its name; empty gives back the devices' name. */
function RenameForm({ storeId, machine, onDone }: { storeId: number; machine: Machine; onDone(): void }) {
  const client = useQueryClient()
  const fieldId = useId()
  const [name, setName] = useState(machine.name)
  const [pending, setPending] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const field = useRef<HTMLInputElement>(null)
  const save = async () => {
    setPending(true)
    setError(null)
    try {
      const trimmed = name.trim()
      await request(`${machinesPath(storeId)}/${encodeURIComponent(machine.machine)}`, {
        method: 'PATCH',
        body: { name: trimmed === '' ? null : trimmed },
      })
      await client.invalidateQueries({ queryKey: [...usageKeys.store(storeId), 'machines'] })
      onDone()
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure))
      setPending(false)
      field.current?.focus()
    }
  }
  return (
    <form
      className="machine-rename-form"
      onSubmit={(event) => {
        event.preventDefault()
        void save()
      }}
    >
      <label htmlFor={fieldId} className="visually-hidden">
        ‘{machine.machine}’의 새 이름 (비우면 단말기가 보낸 이름)
      </label>
      <input
        id={fieldId}
        ref={field}
        value={name}
        maxLength={40}
        // biome-ignore lint/a11y/noAutofocus: the field the owner just asked for.
        autoFocus
        onChange={(event) => setName(event.target.value)}
      />
      <button type="submit" disabled={pending}>
        저장
      </button>
      <button type="button" onClick={onDone}>
        취소
      </button>
      {error && (
        <p className="machine-error" role="alert">
          {error}
        </p>
      )}
    </form>
  )
}
