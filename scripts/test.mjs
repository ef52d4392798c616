#!/usr/bin/env node
// `npm test`: runs the tap suite and ends with the line CI reads,
// `N passed, N failed`, taken from tap's own final count.
import { spawn } from 'node:child_process'

const args = ['tap', 'run', '--reporter=tap', ...process.argv.slice(2)]
const child = spawn('npx', args, { stdio: ['inherit', 'pipe', 'inherit'], env: process.env })
let tail = ''
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk)
  tail = (tail + chunk.toString()).slice(-4096)
})
child.on('close', (code) => {
  // tap ends with a line like `# { total: 120, pass: 118, fail: 1, skip: 1 }`.
  const summary = [...tail.matchAll(/^# \{ (total: \d+[^}]*)\}$/gm)].pop()?.[1] ?? ''
  const count = (name) => Number(new RegExp(`${name}: (\\d+)`).exec(summary)?.[1] ?? 0)
  const failed = count('fail') + (summary ? 0 : 1)
  console.log(`${count('pass')} passed, ${failed} failed`)
  process.exit(code ?? 1)
})
