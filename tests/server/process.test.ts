import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

// The real process entry (`npm start` runs it after the build), on the embedded database.
const dataDir = mkdtempSync(path.join(tmpdir(), 'laundry-process-'))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

function start(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/server.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: '',
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      SEED_DEMO: '0',
      ...env,
    },
  })
  let output = ''
  child.stdout.on('data', (chunk) => {
    output += chunk
  })
  child.stderr.on('data', (chunk) => {
    output += chunk
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
  return { child, exited, output: () => output }
}

async function listening(server: ReturnType<typeof start>) {
  for (let waited = 0; waited < 60_000; waited += 100) {
    const url = server.output().match(/listening on (http:\/\/\S+)/)?.[1]
    if (url) return url
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`not listening: ${server.output()}`)
}

const stop = (child: ChildProcessWithoutNullStreams, signal: NodeJS.Signals) => child.kill(signal)

describe('the server process', () => {
  it('listens, says where, and on SIGTERM closes the database cleanly and exits 0', async () => {
    const server = start({})
    const url = await listening(server)
    expect(url).toMatch(/^http:\/\/localhost:\d+$/)
    const response = await fetch(`${url}/api/nope`)
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ message: '요청한 주소를 찾을 수 없습니다.' })
    expect(existsSync(path.join(dataDir, 'pglite.lock'))).toBe(true)
    stop(server.child, 'SIGTERM')
    expect(await server.exited).toBe(0)
    expect(existsSync(path.join(dataDir, 'pglite.lock'))).toBe(false)

    // The same data directory opens again, and SIGINT (Ctrl+C) closes it as well.
    const again = start({})
    await listening(again)
    stop(again.child, 'SIGINT')
    expect(await again.exited).toBe(0)
  }, 90_000)

  it('refuses to start in production without JWT_SECRET, saying why', async () => {
    const server = start({ NODE_ENV: 'production', JWT_SECRET: '' })
    expect(await server.exited).toBe(1)
    expect(server.output()).toMatch(/JWT_SECRET is required when NODE_ENV=production/)
  }, 30_000)
})
