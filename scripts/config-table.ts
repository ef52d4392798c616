// README.md's Configuration table, written from core/config-schema.ts.
//   node --import tsx scripts/config-table.ts           prints the table
//   node --import tsx scripts/config-table.ts --write   puts it between the markers in README.md
// test/kernel/readme-tables.test.ts fails when README.md's table is not this one.
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { dirname, join } from 'node:path'
import { configVariables, type VariableSchema } from '../core/config-schema.ts'

export const TABLE_START = '<!-- configuration table: written by scripts/config-table.ts from core/config-schema.ts -->'
export const TABLE_END = '<!-- end of configuration table -->'

const README = join(dirname(fileURLToPath(import.meta.url)), '..', 'README.md')

function defaultCell (schema: VariableSchema): string {
  if (schema.defaultText !== undefined) return schema.defaultText
  if (schema.default === undefined) return 'unset'
  if (typeof schema.default === 'boolean') return schema.default ? '`1`' : '`0`'
  return `\`${String(schema.default)}\``
}

/** One row per variable, in the schema's order: `| name | default | meaning |`. */
export function configurationRows (): Array<{ name: string, row: string }> {
  return configVariables().map(([name, schema]) => ({
    name,
    row: `| \`${name}\` | ${defaultCell(schema)} | ${schema.description.replaceAll('|', '\\|')} |`,
  }))
}

export function configurationTable (): string {
  return ['| variable | default | meaning |', '|---|---|---|', ...configurationRows().map(r => r.row)].join('\n')
}

/** README's text with the table between the markers replaced by `table`. */
export function withTable (readme: string, table: string): string {
  const start = readme.indexOf(TABLE_START)
  const end = readme.indexOf(TABLE_END)
  if (start === -1 || end < start) throw new Error(`README.md has no "${TABLE_START}" … "${TABLE_END}" markers`)
  return `${readme.slice(0, start + TABLE_START.length)}\n${table}\n${readme.slice(end)}`
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--write')) {
    const before = readFileSync(README, 'utf8')
    const after = withTable(before, configurationTable())
    if (after !== before) writeFileSync(README, after)
    process.stdout.write(after === before ? 'README.md: the Configuration table is up to date\n' : 'README.md: the Configuration table was rewritten\n')
  } else {
    process.stdout.write(configurationTable() + '\n')
  }
}
