// The device's identity: the key the server gave at pairing (shown that once, kept only as a hash
// there), with the device and store ids and the server's address, in one file only its owner may read.
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from 'node:fs'
import path from 'node:path'
import { syncFolder } from './journal.ts'

export interface Identity {
  server: string
  deviceId: number
  storeId: number
  key: string
  pairedAt: string
}

export const identityFile = (dir: string) => path.join(dir, 'device.json')

export function readIdentity(dir: string): Identity | undefined {
  const file = identityFile(dir)
  if (!existsSync(file)) return undefined
  return JSON.parse(readFileSync(file, 'utf8')) as Identity
}

/** Writes the identity owner-only (folder 0700, file 0600), synced and renamed into place. */
export function writeIdentity(dir: string, identity: Identity) {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const file = identityFile(dir)
  const next = `${file}.next`
  const fd = openSync(next, 'w', 0o600)
  try {
    writeSync(fd, `${JSON.stringify(identity, null, 2)}\n`)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(next, file)
  syncFolder(dir)
}
