import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { listSnapshots } from '../../server/db/snapshots.ts'

// The real process entry (`npm start` runs it after the build), on the embedded database.
const root = mkdtempSync(path.join(tmpdir(), 'laundry-process-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const dataDir = path.join(root, 'data')

/** Runs `script` (the server, or an admin command with `args`), optionally through a wrapper command. */
function run(
  script: string,
  { env = {}, args = [], wrap = [] }: { env?: Record<string, string>; args?: string[]; wrap?: string[] } = {},
) {
  const command = [...wrap, process.execPath, '--import', 'tsx', script, ...args]
  const child = spawn(command[0] as string, command.slice(1), {
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

const start = (env: Record<string, string> = {}, wrap: string[] = []) =>
  run('server/server.ts', { env, wrap })

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
    const server = start()
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
    const again = start()
    await listening(again)
    stop(again.child, 'SIGINT')
    expect(await again.exited).toBe(0)
  }, 90_000)

  it('refuses to start in production without JWT_SECRET, saying why', async () => {
    const server = start({ NODE_ENV: 'production', JWT_SECRET: '' })
    expect(await server.exited).toBe(1)
    expect(server.output()).toMatch(/JWT_SECRET is required when NODE_ENV=production/)
  }, 30_000)

  it('refuses to start when IMAGE_DIR would serve the database and the secret, naming both variables', async () => {
    const server = start({ IMAGE_DIR: dataDir })
    expect(await server.exited).toBe(1)
    expect(server.output()).toContain(
      `IMAGE_DIR=${JSON.stringify(dataDir)} and DATA_DIR=${JSON.stringify(dataDir)}`,
    )
  }, 30_000)

  it('a crash as PID 1 in a container leaves no lock that blocks the restart', async () => {
    const dir = path.join(root, 'container')
    // A new PID namespace, as in a container: the server is PID 1 there, each time.
    const container = ['unshare', '--pid', '--fork', '--mount-proc', '--kill-child=SIGKILL']
    const first = start({ DATA_DIR: dir }, container)
    const url = await listening(first)
    expect(JSON.parse(readFileSync(path.join(dir, 'pglite.lock'), 'utf8')).pid).toBe(1)
    stop(first.child, 'SIGKILL')
    await first.exited
    await gone(url)
    expect(existsSync(path.join(dir, 'pglite.lock'))).toBe(true)

    const second = start({ DATA_DIR: dir }, container)
    await listening(second)
    stop(second.child, 'SIGKILL')
    await second.exited
  }, 180_000)

  it('keeps DATA_DIR owner-only, even under umask 000 and over files an older version left open', async () => {
    const dir = path.join(root, 'modes')
    mkdirSync(path.join(dir, 'images', 'users'), { recursive: true })
    chmodSync(dir, 0o777)
    // A picture an older version's add-user wrote, left open; and one the operator put there.
    writeFileSync(path.join(dir, 'images', 'users', '1.png'), 'png', { mode: 0o666 })
    chmodSync(path.join(dir, 'images', 'users', '1.png'), 0o666)
    writeFileSync(path.join(dir, 'images', 'logo.png'), 'png', { mode: 0o644 })
    const server = start({ DATA_DIR: dir }, ['sh', '-c', 'umask 000 && exec "$0" "$@"'])
    await listening(server)
    stop(server.child, 'SIGTERM')
    expect(await server.exited).toBe(0)
    // The last snapshot, taken on shutdown.
    expect(listSnapshots(path.join(dir, 'snapshots'))).toHaveLength(1)

    const open: string[] = []
    let files = 0
    const walk = (target: string) => {
      const stat = lstatSync(target)
      files++
      if ((stat.mode & 0o077) !== 0)
        open.push(`${(stat.mode & 0o777).toString(8)} ${path.relative(dir, target)}`)
      if (stat.isDirectory()) for (const name of readdirSync(target)) walk(path.join(target, name))
    }
    walk(dir)
    expect(files).toBeGreaterThan(500)
    // Only what the product writes is made owner-only: the operator's picture and folder stay as they were.
    expect(open.sort()).toEqual(['644 images/logo.png', '755 images'])
  }, 180_000)

  it('starts with a root-owned lost+found at the root of mounted image and snapshot disks, and leaves operator files alone', async () => {
    // As root, the server runs as nobody, who cannot read root's lost+found; otherwise the folder is
    // made unreadable to its owner.
    const asRoot = process.getuid?.() === 0
    const base = mkdtempSync(path.join(tmpdir(), 'laundry-mounts-'))
    try {
      chmodSync(base, 0o755)
      const disks = {
        data: path.join(base, 'data'),
        images: path.join(base, 'images'),
        backup: path.join(base, 'backup'),
      }
      for (const disk of Object.values(disks)) mkdirSync(disk)
      mkdirSync(path.join(disks.images, 'users'))
      writeFileSync(path.join(disks.images, 'logo.png'), 'png', { mode: 0o644 })
      writeFileSync(path.join(disks.images, 'users', '1.png'), 'png', { mode: 0o644 })
      for (const disk of [disks.images, disks.backup])
        mkdirSync(path.join(disk, 'lost+found'), { mode: 0o700 })
      // An entry inside a folder the product writes that it cannot read: a warning, never a refused start.
      mkdirSync(path.join(disks.images, 'users', 'stray'), { mode: 0o700 })
      const nobody = 65534
      if (asRoot) {
        for (const target of [
          ...Object.values(disks),
          path.join(disks.images, 'logo.png'),
          path.join(disks.images, 'users'),
          path.join(disks.images, 'users', '1.png'),
        ])
          chownSync(target, nobody, nobody)
      } else {
        for (const disk of [disks.images, disks.backup]) chmodSync(path.join(disk, 'lost+found'), 0o000)
        chmodSync(path.join(disks.images, 'users', 'stray'), 0o000)
      }
      const wrap = asRoot ? ['setpriv', `--reuid=${nobody}`, `--regid=${nobody}`, '--clear-groups'] : []
      const env = { DATA_DIR: disks.data, IMAGE_DIR: disks.images, SNAPSHOT_DIR: disks.backup }
      const server = start(env, wrap)
      await listening(server)
      stop(server.child, 'SIGTERM')
      expect(await server.exited, server.output()).toBe(0)
      expect(server.output()).toContain(path.join(disks.images, 'users', 'stray'))
      expect(listSnapshots(disks.backup)).toHaveLength(1)
      const mode = (file: string) => (lstatSync(file).mode & 0o777).toString(8)
      expect(mode(path.join(disks.images, 'logo.png'))).toBe('644')
      expect(mode(path.join(disks.images, 'users', '1.png'))).toBe('600')
      expect(mode(listSnapshots(disks.backup)[0]?.file ?? '')).toBe('600')
      // The admin commands start the same way.
      const list = run('server/admin.ts', { env, args: ['list'], wrap })
      expect(await list.exited, list.output()).toBe(0)
    } finally {
      if (!asRoot)
        for (const target of ['images/lost+found', 'backup/lost+found', 'images/users/stray'])
          chmodSync(path.join(base, target), 0o700)
      rmSync(base, { recursive: true, force: true })
    }
  }, 180_000)

  it('a damaged database: the server does not start and names the snapshot to restore; restore refuses while the server runs', async () => {
    // The database of the test before, with its snapshot.
    const dir = path.join(root, 'modes')
    const [newest] = listSnapshots(path.join(dir, 'snapshots'))
    if (!newest) throw new Error('expected a snapshot')
    const control = path.join(dir, 'pglite', 'global', 'pg_control')
    writeFileSync(control, readFileSync(control).fill(0x55, 0, 64))

    const damaged = start({ DATA_DIR: dir })
    expect(await damaged.exited).toBe(1)
    expect(damaged.output()).toContain(`The newest snapshot is ${newest.file}`)
    expect(damaged.output()).toContain(`npm run admin -- restore ${newest.file}`)

    const restore = run('server/admin.ts', { env: { DATA_DIR: dir }, args: ['restore', newest.file] })
    expect(await restore.exited).toBe(0)
    expect(restore.output()).toContain(`restored ${newest.file}`)

    const server = start({ DATA_DIR: dir })
    await listening(server)
    const refused = run('server/admin.ts', { env: { DATA_DIR: dir }, args: ['restore', newest.file] })
    expect(await refused.exited).toBe(1)
    expect(refused.output()).toMatch(/is in use by process \d+/)
    stop(server.child, 'SIGTERM')
    expect(await server.exited).toBe(0)
  }, 240_000)
})

/** Waits until nothing answers at `url` (the killed server is gone). */
async function gone(url: string) {
  for (let waited = 0; waited < 30_000; waited += 100) {
    try {
      await fetch(url)
    } catch {
      return
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`${url} still answers`)
}
