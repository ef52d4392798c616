// Runs every benchmark under scripts/bench/ in sequence, each in its own
// process (so one's memory, crawlee state or event-loop debt never reaches the
// next, and export.ts reads a clean RSS). Output streams through unchanged;
// every `goal: …` line a benchmark prints is collected, and the run ends with
// all of them together: each figure of issue 17's table (and the older
// benchmarks' goals) beside its goal, met or MISSED.
// Run: npm run bench   or   node --import tsx scripts/bench/run.ts [name …]
// Exits non-zero when a benchmark exited non-zero (an error; a missed goal
// never fails a benchmark).
import { spawn } from 'node:child_process'
import { join } from 'node:path'

const ALL = ['startup', 'me', 'me-floor', 'poll', 'observability', 'job-overhead', 'cluster', 'mcp-tasks', 'export', 'artifacts', 'crawl', 'scrape', 'email-verify', 'hostile', 'frames', 'monitors']
const chosen = process.argv.slice(2).length ? process.argv.slice(2) : ALL

function runOne (name: string, goals: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, `${name}.ts`)], { stdio: ['ignore', 'pipe', 'inherit'], env: process.env })
    let pending = ''
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk)
      pending += chunk.toString()
      const lines = pending.split('\n')
      pending = lines.pop()!
      for (const line of lines) if (line.startsWith('goal: ')) goals.push(line.slice(6))
    })
    child.on('exit', (code, signal) => {
      if (pending.startsWith('goal: ')) goals.push(pending.slice(6))
      resolve(code ?? (signal ? 1 : 0))
    })
    child.on('error', () => resolve(1))
  })
}

const results: Array<{ name: string, code: number, seconds: number, goals: string[] }> = []
for (const name of chosen) {
  if (!ALL.includes(name)) { console.error(`unknown benchmark '${name}'; known: ${ALL.join(', ')}`); process.exitCode = 1; continue }
  console.log(`\n=== ${name} ===`)
  const t0 = performance.now()
  const goals: string[] = []
  const code = await runOne(name, goals)
  results.push({ name, code, seconds: (performance.now() - t0) / 1000, goals })
}
console.log('\n=== summary ===')
for (const r of results) {
  console.log(`${r.name.padEnd(14)} ${r.code === 0 ? 'ok' : `FAILED (exit ${r.code})`}  ${r.seconds.toFixed(1)} s`)
  for (const g of r.goals) console.log(`  ${g}`)
  if (r.goals.length === 0) console.log('  (no goal line printed)')
}
// Issue 17's table also has the suite's time, which is not a benchmark: `npm test` prints it.
if (chosen.length === ALL.length) console.log('npm test       not run here: its own last line gives the time per database (goal: under 4 minutes each)')
if (results.some(r => r.code !== 0)) process.exitCode = 1
