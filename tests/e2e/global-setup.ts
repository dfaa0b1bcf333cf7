// Starts the real server (PGlite in a fresh temporary directory, demo data, console SMS) on a free
// port, serving the built app, and stops it after the run. Tests find it through E2E_BASE_URL and
// read sign-in codes from its output in E2E_SERVER_LOG. It serves a copy of the build (E2E_WEB_DIR),
// into which a test can deploy a new version.
import { spawn } from 'node:child_process'
import { cpSync, createWriteStream, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

export default async function globalSetup() {
  const builtDir = path.resolve(process.env.E2E_BUILD_DIR ?? 'dist')
  if (!existsSync(path.join(builtDir, 'index.html'))) {
    throw new Error(`No built web app in ${builtDir}: run \`npm run build\` first (npm test does).`)
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), 'laundry-e2e-'))
  const webDir = path.join(dataDir, 'web')
  cpSync(builtDir, webDir, { recursive: true })
  const logFile = path.join(dataDir, 'server.log')
  const log = createWriteStream(logFile)
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    WEB_DIR: webDir,
    SEED_DEMO: '1',
    SMS_PROVIDER: 'console',
    LOG_LEVEL: 'warn',
    // The tests sign in many times from one address; the limits themselves are tested on the server.
    CODE_REQUESTS_PER_PHONE_PER_HOUR: '1000',
    CODE_REQUESTS_PER_IP_PER_HOUR: '1000',
  }
  delete env.DATABASE_URL
  const server = spawn(process.execPath, ['--import', 'tsx', 'server/server.ts'], { env, stdio: 'pipe' })

  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`server did not start in 120 s; see ${logFile}`)),
      120_000,
    )
    let output = ''
    server.stdout.on('data', (chunk: Buffer) => {
      log.write(chunk)
      output += chunk.toString()
      const match = output.match(/listening on (http:\/\/\S+)/)
      if (match?.[1]) {
        clearTimeout(timer)
        resolve(match[1])
      }
    })
    server.stderr.on('data', (chunk: Buffer) => log.write(chunk))
    server.on('exit', (code) =>
      reject(new Error(`server exited with ${code} before listening; see ${logFile}`)),
    )
  })
  process.env.E2E_BASE_URL = baseUrl
  process.env.E2E_SERVER_LOG = logFile
  process.env.E2E_WEB_DIR = webDir

  return async () => {
    const exited = new Promise((resolve) => server.on('exit', resolve))
    server.kill('SIGTERM')
    await exited
    log.end()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
