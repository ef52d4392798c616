// Configuration for the Prisma CLI only (generate, migrate). The running service
// never needs the CLI: core/db/migrator.ts applies the committed migrations at start.
import { defineConfig } from 'prisma/config'

const url = process.env.DATABASE_URL ?? 'file:./data/app.db'
const postgres = /^postgres(ql)?:\/\//.test(url)

export default defineConfig({
  schema: postgres ? 'prisma/postgres/schema.prisma' : 'prisma/schema.prisma',
  migrations: { path: postgres ? 'prisma/postgres/migrations' : 'prisma/migrations' },
  datasource: { url },
})
