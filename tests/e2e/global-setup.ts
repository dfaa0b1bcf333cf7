// Starts the real server (PGlite in a fresh temporary directory, demo data and e2e-only accounts,
// console SMS) on a free port, serving the built app, and stops it after the run. Tests find it through
// E2E_BASE_URL and read sign-in codes from its output in E2E_SERVER_LOG. It serves a copy of the build
// (E2E_WEB_DIR), into which a test can deploy a new version.
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { runServer } from '../../scripts/run-server.ts'
import { addMachinesAccount } from './machines-data.ts'
import { addQuietStoreAccount } from './quiet-stores-data.ts'
import { solapiEnv, startSolapiStandIn } from './solapi-stand-in.ts'

export default async function globalSetup() {
  const builtDir = path.resolve(process.env.E2E_BUILD_DIR ?? 'dist')
  if (!existsSync(path.join(builtDir, 'index.html'))) {
    throw new Error(`No built web app in ${builtDir}: run \`npm run build\` first (npm test does).`)
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), 'laundry-e2e-'))
  const webDir = path.join(dataDir, 'web')
  cpSync(builtDir, webDir, { recursive: true })
  // The demo seed first (it runs on a database without users only), then the e2e-only account; the
  // server then finds users and seeds nothing more.
  await addQuietStoreAccount(dataDir, new Date())
  await addMachinesAccount(dataDir)
  const solapiLog = path.join(dataDir, 'solapi.jsonl')
  const solapi = await startSolapiStandIn(solapiLog)
  const server = await runServer({
    dataDir,
    webDir,
    // The tests sign in many times from one address; the limits themselves are tested on the server.
    env: {
      CODE_REQUESTS_PER_PHONE_PER_HOUR: '1000',
      CODE_REQUESTS_PER_PHONE_PER_CLIENT_PER_DAY: '1000',
      CODE_REQUESTS_PER_PHONE_PER_DAY: '1001',
      CODE_REQUESTS_PER_IP_PER_HOUR: '1000',
      SIGN_ATTEMPTS_PER_IP_PER_HOUR: '1000',
      // A push service that refuses every connection at once (nothing listens on port 9): the alerts
      // spec subscribes there, so that a test notification fails fast instead of reaching for the internet.
      PUSH_ALLOWED_ORIGINS: 'https://127.0.0.1:9',
      // SOLAPI stood in on this machine (solapi-stand-in.ts): no message leaves it.
      ...solapiEnv,
      SOLAPI_BASE_URL: solapi.url,
    },
  })
  process.env.E2E_BASE_URL = server.url
  process.env.E2E_SERVER_LOG = server.logFile
  process.env.E2E_WEB_DIR = webDir
  process.env.E2E_SOLAPI_LOG = solapiLog

  return async () => {
    await server.stop()
    await solapi.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
