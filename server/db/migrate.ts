// Both databases are brought up to date by the same migrations: ./migrations, generated from schema.ts
// by `npm run db:generate` (drizzle.config.ts). Each driver runs them with its own Drizzle migrator.
import { fileURLToPath } from 'node:url'

export const migrationsFolder = fileURLToPath(new URL('./migrations', import.meta.url))
