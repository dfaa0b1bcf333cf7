import { defineConfig } from 'drizzle-kit'

// Generates SQL migrations from server/db/schema.ts and its parts (schema-*.ts): npm run db:generate
export default defineConfig({
  dialect: 'postgresql',
  schema: [
    './server/db/schema.ts',
    './server/db/schema-team.ts',
    './server/db/schema-outages.ts',
    './server/db/schema-payments.ts',
    './server/db/schema-messages.ts',
    './server/db/schema-push.ts',
  ],
  out: './server/db/migrations',
})
