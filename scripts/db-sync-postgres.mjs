#!/usr/bin/env node
// Derives prisma/postgres/schema.prisma from prisma/schema.prisma: the models are
// the same, only the provider and the generated client's folder change.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs'

const source = readFileSync('prisma/schema.prisma', 'utf8')
const derived = source
  .replace('provider = "sqlite"', 'provider = "postgresql"')
  .replace('output       = "generated/sqlite"', 'output       = "../generated/postgres"')
  .replace(/^\/\/ The one source of truth[\s\S]*?\n\n/m,
    '// GENERATED from prisma/schema.prisma by scripts/db-sync-postgres.mjs: edit that file instead.\n\n')
if (derived === source) throw new Error('prisma/schema.prisma no longer has the expected provider/output lines')
mkdirSync('prisma/postgres', { recursive: true })
writeFileSync('prisma/postgres/schema.prisma', derived)
console.log('wrote prisma/postgres/schema.prisma')
