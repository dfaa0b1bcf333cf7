// The process: read the configuration, open (and migrate) the database, seed demo data into an empty
// one, serve, and close everything cleanly on SIGTERM or SIGINT.
import { buildApp } from './app.ts'
import { ConfigError, readConfig } from './config.ts'
import { DatabaseInUseError, databaseTarget, openDatabase } from './db/client.ts'
import { seedDemoIfEmpty } from './db/seed.ts'

async function main() {
  const config = readConfig()
  const database = await openDatabase(databaseTarget(config))
  if (config.seedDemo && (await seedDemoIfEmpty(database.db, config.imageDir, new Date()))) {
    console.log('Loaded demo data: sign in as 01012345678 (owner of three stores) or 01022223333 (staff).')
  }
  const app = await buildApp({ config, database })

  let closing = false
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (closing) return
      closing = true
      app.log.info(`${signal}: closing`)
      app.close().then(
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
  console.log(`Laundry sales dashboard listening on http://${host}:${port} (database: ${database.kind})`)
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DatabaseInUseError) console.error(error.message)
  else console.error(error)
  process.exit(1)
})
