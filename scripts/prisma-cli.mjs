#!/usr/bin/env node
// Runs the Prisma CLI with a schema engine that works without internet access.
// `prisma generate` never starts the engine but wants the variable to name an
// existing file; migrate commands need the real stand-in from ../shared/tools.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'

const env = { ...process.env }
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) {
  const standIn = resolve('../shared/tools/prisma-schema-engine.mjs')
  env.PRISMA_SCHEMA_ENGINE_BINARY = existsSync(standIn) ? standIn : resolve('package.json')
}
env.PRISMA_HIDE_UPDATE_MESSAGE = '1'
const cli = resolve('node_modules/prisma/build/index.js')
const args = process.argv.slice(2)
const run = (argv, extraEnv = {}) =>
  spawnSync(process.execPath, [cli, ...argv], { stdio: 'inherit', env: { ...env, ...extraEnv } }).status ?? 1

if (args[0] === 'generate-all') {
  // Both clients: the SQLite default and the PostgreSQL one.
  const a = run(['generate', '--schema', 'prisma/schema.prisma'])
  const b = run(['generate', '--schema', 'prisma/postgres/schema.prisma'])
  process.exit(a || b)
}
process.exit(run(args))
