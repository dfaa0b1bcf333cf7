// The alerts screen's example of each kind, worded by the very functions the pushes are
// (domain/alert-texts.ts). Made when the app is built (vite.config.ts defines them as
// `__ALERT_EXAMPLES__`), so that the screen carries the texts and not the wording code: each kind's
// title and text.
import type { AlertKind } from '../../../contract/api.ts'
import {
  type AlertText,
  deviceOfflineAlert,
  machineErrorAlert,
  machineSilentAlert,
  quietAlert,
  summaryLine,
  summaryTitle,
  terminalAlert,
} from '../../../domain/alert-texts.ts'

const store = '역삼점'

const examples = (): Record<AlertKind, AlertText> => ({
  quiet: quietAlert(store, { since: 0, quietHours: 3, expectedSales: 18 }),
  // At 14:32 KST.
  deviceOffline: deviceOfflineAlert(store, { device: '카운터 옆 결제기' }, Date.UTC(2026, 2, 16, 5, 32)),
  machineError: machineErrorAlert(
    store,
    { name: '세탁기 3', kind: 'washer' },
    'E21',
    Date.UTC(2026, 2, 16, 5, 32),
  ),
  machineSilent: machineSilentAlert(store, { name: '세탁기 3', kind: 'washer' }, 5, 14),
  paymentTerminal: terminalAlert(store, { failedPayments: 3 }, Date.UTC(2026, 2, 16, 5, 32)),
  // The first line of three stores'.
  morningSummary: {
    title: summaryTitle(Date.UTC(2026, 2, 15), 3),
    body: summaryLine({
      name: store,
      sum: 412_000,
      count: 58,
      usualSum: 381_500,
      monthSum: 6_120_000,
      previousMonthSum: 5_940_000,
      quietEpisodes: 0,
    }),
  },
})

export const alertExamples = () =>
  Object.fromEntries(
    Object.entries(examples()).map(([kind, { title, body }]) => [kind, [title, body]]),
  ) as Record<AlertKind, [string, string]>

/** The examples as the build's `define`s (`__ALERT_EXAMPLES__.<kind>`): the app's build and the tests'. */
export const alertExampleDefines = () =>
  Object.fromEntries(
    Object.entries(alertExamples()).map(([kind, text]) => [
      `__ALERT_EXAMPLES__.${kind}`,
      JSON.stringify(text),
    ]),
  )
