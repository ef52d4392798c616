// Runs every benchmark under scripts/bench/ in sequence, each in its own
// process (so one's memory, crawlee state or event-loop debt never reaches the
// next, and export.ts reads a clean RSS). Output streams through unchanged.
// Run: npm run bench   or   node --import tsx scripts/bench/run.ts [name …]
// Exits non-zero when a benchmark exited non-zero (an error; a missed goal
// never fails a benchmark).
import { spawn } from 'node:child_process'
import { join } from 'node:path'

const ALL = ['me', 'job-overhead', 'cluster', 'export', 'artifacts', 'crawl', 'scrape', 'email-verify', 'hostile', 'frames']
const chosen = process.argv.slice(2).length ? process.argv.slice(2) : ALL

function runOne (name: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, `${name}.ts`)], { stdio: 'inherit', env: process.env })
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)))
    child.on('error', () => resolve(1))
  })
}

const results: Array<{ name: string, code: number, seconds: number }> = []
for (const name of chosen) {
  if (!ALL.includes(name)) { console.error(`unknown benchmark '${name}'; known: ${ALL.join(', ')}`); process.exitCode = 1; continue }
  console.log(`\n=== ${name} ===`)
  const t0 = performance.now()
  const code = await runOne(name)
  results.push({ name, code, seconds: (performance.now() - t0) / 1000 })
}
console.log('\n=== summary ===')
for (const r of results) console.log(`${r.name.padEnd(14)} ${r.code === 0 ? 'ok' : `FAILED (exit ${r.code})`}  ${r.seconds.toFixed(1)} s`)
if (results.some(r => r.code !== 0)) process.exitCode = 1
