// The official MCP conformance suite (@modelcontextprotocol/conformance)
// against /mcp on a real port: the server scenarios that apply to this
// endpoint, each asserted to pass. The suite needs Node 22: its binary comes
// from NODE22_BIN (.ci/run installs one); without it the test is skipped,
// visibly, naming what is missing.
//
// The suite's client sends no credential and has no option for one, while
// /mcp requires a Bearer key: a small forwarder on loopback adds the key of a
// signed-up user and passes every other header (Host and Origin included)
// through unchanged, so the DNS-rebinding scenario still reaches the guard
// with the headers it chose.
import t from 'tap'
import http from 'node:http'
import { execFile } from 'node:child_process'
import { accessSync, constants, readdirSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { AddressInfo } from 'node:net'
import { tempDir } from '../helpers/build.ts'
import { listeningApp } from './_agent.ts'

// Six runs of the suite, each starting a Node 22 process: more than tap's default per-file timeout on a busy machine.
t.setTimeout(600_000)

const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'resources-list', 'prompts-list', 'dns-rebinding-protection']

function node22 (): { bin: string } | { missing: string } {
  const bin = process.env.NODE22_BIN
  if (!bin) return { missing: 'NODE22_BIN is not set (a Node 22 binary for the MCP conformance suite; .ci/run installs one)' }
  try { accessSync(bin, constants.X_OK) } catch { return { missing: `NODE22_BIN (${bin}) is not an executable file` } }
  return { bin }
}

const found = node22()
const suiteCli = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')), 'dist', 'index.js')

interface Check { id: string, status: string, errorMessage?: string }

/** Every checks.json the suite wrote under `dir`. */
function readChecks (dir: string): Check[] {
  const out: Check[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...readChecks(path))
    else if (name === 'checks.json') out.push(...JSON.parse(readFileSync(path, 'utf8')) as Check[])
  }
  return out
}

function runScenario (bin: string, url: string, scenario: string, outDir: string): Promise<{ code: number | null, output: string }> {
  return new Promise(resolve => {
    execFile(bin, [suiteCli, 'server', '--url', url, '--scenario', scenario, '-o', outDir], { timeout: 120_000, env: { ...process.env, NO_COLOR: '1' } }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : null) : 0
      resolve({ code, output: `${stdout}\n${stderr}` })
    })
  })
}

t.test('MCP conformance suite, server scenarios', { skip: 'missing' in found ? found.missing : false }, async t => {
  if ('missing' in found) return
  const { base, user } = await listeningApp(t)
  const upstream = new URL(base)
  const forwarder = http.createServer((req, res) => {
    const out = http.request({
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, authorization: `Bearer ${user.apiKey}` },
    }, answer => { res.writeHead(answer.statusCode ?? 502, answer.headers); answer.pipe(res) })
    out.on('error', () => { res.writeHead(502); res.end() })
    req.pipe(out)
  })
  await new Promise<void>(resolve => forwarder.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>(resolve => forwarder.close(() => resolve())))
  const url = `http://127.0.0.1:${(forwarder.address() as AddressInfo).port}/mcp`

  for (const scenario of SCENARIOS) {
    const outDir = tempDir(t, 'ejs-conformance-')
    const { code, output } = await runScenario(found.bin, url, scenario, outDir)
    const checks = readChecks(outDir)
    // Warnings are advice, not failures (the suite's own exit code treats them so).
    const failed = checks.filter(c => c.status !== 'SUCCESS' && c.status !== 'WARNING')
    t.ok(checks.length > 0, `${scenario}: the suite ran checks`)
    t.same(failed.map(c => `${c.id}: ${c.status} ${c.errorMessage ?? ''}`), [], `${scenario}: every check passes`)
    t.equal(code, 0, `${scenario}: exit code 0`)
    if (failed.length || code !== 0) t.comment(output)
  }
})
