// The process: read the configuration, open (and migrate) the database, seed demo data into an empty
// one, serve, and close everything cleanly on SIGTERM or SIGINT.
import { buildApp } from './app.ts'
import { ConfigError, defaultVapidSubject, readConfig, vapidSubjectProblem } from './config.ts'
import { renameGuessablePictures } from './db/accounts.ts'
import { databaseTarget, openDatabase } from './db/client.ts'
import { DatabaseDamagedError } from './db/embedded.ts'
import { DatabaseInUseError } from './db/lock.ts'
import { seedDemoIfEmpty } from './db/seed.ts'
import { SnapshotSchedule } from './db/snapshot-schedule.ts'
import { startDemoDevices } from './demo-live.ts'
import { secureDataDir } from './files.ts'

async function main() {
  const config = readConfig()
  secureDataDir(config)
  const database = await openDatabase(databaseTarget(config))
  // Pictures an earlier version uploaded under guessable names (users/1.png) get unguessable ones.
  const renamed = await renameGuessablePictures(database.db, config.imageDir)
  if (renamed > 0) console.log(`Gave ${renamed} uploaded picture(s) unguessable names.`)
  if (config.seedDemo && (await seedDemoIfEmpty(database.db, config.imageDir, new Date()))) {
    console.log('Loaded demo data: sign in as 01012345678 (owner of three stores) or 01022223333 (staff).')
  }
  // From here a statement of the embedded database that does not answer ends the process (DB_STALL_SECONDS).
  database.watchStalls(config.dbStallSeconds * 1000)
  const app = await buildApp({ config, database })
  // Outside production a subject Apple refuses is allowed, but said: iPhones would get no alerts.
  const subjectProblem = vapidSubjectProblem(config.push.subject)
  if (subjectProblem || config.push.subject === defaultVapidSubject)
    app.log.warn(
      `VAPID_SUBJECT=${config.push.subject} ${subjectProblem ?? 'is the stand-in'}: set a mailto: address or https: page of your own, or Apple's push service refuses alerts to iPhones.`,
    )

  // The embedded database surely reaches the disk only through snapshots: every SNAPSHOT_MINUTES
  // (the first one whatever happened before this start, e.g. a kill -9 after changes), and on shutdown.
  // None at start-up: it would hold up the first requests for the length of a dump.
  const snapshots = database.pglite ? new SnapshotSchedule(database.pglite, config.snapshots, app.log) : null

  let demoDevices: { stop(): Promise<void> } | undefined
  let closing = false
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (closing) return
      closing = true
      app.log.info(`${signal}: closing`)
      // The demo devices first, so that no sale they deliver comes after the last snapshot.
      Promise.resolve(demoDevices?.stop())
        .then(() => snapshots?.stop())
        .catch((error: unknown) => app.log.error({ err: error }, 'last database snapshot failed'))
        .then(() => app.close())
        .then(
          () => process.exit(0),
          (error: unknown) => {
            app.log.error(error)
            process.exit(1)
          },
        )
    })
  }

  await app.listen({ port: config.port, host: config.host })
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : config.port
  const host = ['0.0.0.0', '::', 'localhost', '127.0.0.1'].includes(config.host) ? 'localhost' : config.host
  console.log(
    `Laundry sales dashboard listening on ${config.tls ? 'https' : 'http'}://${host}:${port} (database: ${database.kind})`,
  )
  snapshots?.start()
  // With demo data, the demo stores' devices sell live through the real calls (DEMO_LIVE=0: not).
  if (config.demoLive) {
    const self = ['0.0.0.0', '::', 'localhost'].includes(config.host) ? '127.0.0.1' : config.host
    demoDevices = await startDemoDevices({
      db: database.db,
      dataDir: config.dataDir,
      url: `${config.tls ? 'https' : 'http'}://${self.includes(':') ? `[${self}]` : self}:${port}`,
      log: app.log,
    }).catch((error: unknown) => {
      app.log.warn({ err: error }, 'demo devices not started')
      return undefined
    })
  }
  // The busiest stores' answers of this year and last, built while nobody waits for them.
  const year = new Date().getUTCFullYear()
  app.usageCache.warm([year, year - 1]).then(
    (built) => app.log.info(`usage answers built ahead: ${built}`),
    (error: unknown) => app.log.warn({ err: error }, 'building usage answers ahead failed'),
  )
}

main().catch((error: unknown) => {
  if (
    error instanceof ConfigError ||
    error instanceof DatabaseInUseError ||
    error instanceof DatabaseDamagedError
  )
    console.error(error.message)
  else console.error(error)
  process.exit(1)
})
