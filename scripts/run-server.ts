// Starts the real server as a child process on a free port (PGlite in `dataDir`, console SMS) and
// hands back its address, its output and a way to stop it. End-to-end tests and benchmarks use it.
import { spawn } from 'node:child_process'
import { createWriteStream } from 'node:fs'
import path from 'node:path'

export interface RunningServer {
  url: string
  logFile: string
  /** Everything the server printed so far. */
  output(): string
  /** The code in the first console SMS to `phone` printed after `since` (a length of output()). */
  smsCode(phone: string, since: number): Promise<string>
  stop(): Promise<void>
  /** SIGKILL: no shutdown, no last snapshot (a crash). */
  kill(): Promise<void>
}

export async function runServer({
  dataDir,
  webDir,
  env = {},
}: {
  dataDir: string
  webDir: string
  env?: Record<string, string>
}): Promise<RunningServer> {
  const logFile = path.join(dataDir, 'server.log')
  const log = createWriteStream(logFile, { flags: 'a' })
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    WEB_DIR: webDir,
    SEED_DEMO: '1',
    // Tests and measurements compare figures with the records: the demo devices stay off.
    DEMO_LIVE: '0',
    SMS_PROVIDER: 'console',
    LOG_LEVEL: 'warn',
    ...env,
  }
  delete childEnv.DATABASE_URL
  const server = spawn(process.execPath, ['--import', 'tsx', 'server/server.ts'], {
    env: childEnv,
    stdio: 'pipe',
  })
  let output = ''
  const record = (chunk: Buffer) => {
    log.write(chunk)
    output += chunk.toString()
  }
  server.stdout.on('data', record)
  server.stderr.on('data', record)
  const exited = new Promise<void>((resolve) => server.on('exit', () => resolve()))

  // A new database is seeded with the demo's year at the first start: 120 s is plenty on an idle
  // machine, not always on a loaded one (SERVER_START_TIMEOUT_S to wait longer).
  const startSeconds = Number(process.env.SERVER_START_TIMEOUT_S) || 120
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`server did not start in ${startSeconds} s; see ${logFile}`)),
      startSeconds * 1000,
    )
    const look = () => {
      const match = output.match(/listening on (https?:\/\/\S+)/)
      if (match?.[1]) {
        clearTimeout(timer)
        resolve(match[1])
      }
    }
    server.stdout.on('data', look)
    server.on('exit', (code) =>
      reject(new Error(`server exited with ${code} before listening; see ${logFile}`)),
    )
  })

  return {
    url,
    logFile,
    output: () => output,
    async smsCode(phone, since) {
      for (let waited = 0; waited < 10_000; waited += 50) {
        const code = output.slice(since).match(new RegExp(`SMS to ${phone}: .*?\\b(\\d{4})\\b`))?.[1]
        if (code) return code
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      throw new Error(`no SMS to ${phone} in the server output`)
    },
    async stop() {
      server.kill('SIGTERM')
      await exited
      log.end()
    },
    async kill() {
      server.kill('SIGKILL')
      await exited
      log.end()
    },
  }
}
