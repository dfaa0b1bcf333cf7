// One store's alert settings as the server answers them by default (every kind on, by push), for the
// alerts screen's tests and the server's (tests/server/push/calls.test.ts proves they are its defaults); `fields` and `channels` change what a test needs.
import type { StoreAlertSettings } from '../../../contract/api.ts'

export const alertSettings = (
  fields: Partial<StoreAlertSettings> = {},
  channels: Partial<StoreAlertSettings['channels']> = {},
): StoreAlertSettings => ({
  storeId: 1,
  quiet: true,
  deviceOffline: true,
  deviceOfflineMinutes: 10,
  machineError: true,
  machineSilent: true,
  paymentTerminal: true,
  morningSummary: true,
  quietHours: { start: '23:00', end: '07:00' },
  snoozedUntil: null,
  channels: {
    quiet: 'push',
    deviceOffline: 'push',
    machineError: 'push',
    machineSilent: 'push',
    paymentTerminal: 'push',
    morningSummary: 'push',
    ...channels,
  },
  smsFallback: true,
  ...fields,
})
