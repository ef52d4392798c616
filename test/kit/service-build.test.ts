// test/helpers/service-build.ts: the run's one build of the service (the lock
// that lets one test process build while the others wait), and the commands the
// tests start from it. The build itself is a stand-in here; the real one is
// checked by test/kernel/compiled-start.test.ts.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { npmScriptCommand, REPO_ROOT, scriptEnvironment } from '../../scripts/bench/server-process.ts'
import { tempDir } from '../helpers/build.ts'
import { TEST_TOOLS_CONFIG } from '../helpers/jobs.ts'
import { serviceCommand, serviceEnvironment, sharedBuild, toolsConfig, type ServiceBuild } from '../helpers/service-build.ts'

/** A build that takes a moment and counts its calls. */
function standIn (result: { status: number, output: string } = { status: 0, output: 'built' }) {
  const calls: string[] = []
  const build = async (dir: string): Promise<ServiceBuild> => {
    calls.push(dir)
    await new Promise(r => setTimeout(r, 200))
    return { dir, ...result }
  }
  return { calls, build }
}

t.test('processes that need the build at once share one: one builds, the others wait for its result', async t => {
  const runDir = tempDir(t)
  const { calls, build } = standIn()
  const results = await Promise.all([sharedBuild(runDir, build), sharedBuild(runDir, build), sharedBuild(runDir, build)])
  t.equal(calls.length, 1, 'built once')
  t.same(results, Array(3).fill({ dir: join(runDir, 'service'), status: 0, output: 'built' }))
  t.same(await sharedBuild(runDir, build), results[0], 'a later process reads the result')
  t.equal(calls.length, 1)
})

t.test('a failed build is every waiter\'s failure, and no command is given from it', async t => {
  const runDir = tempDir(t)
  const { calls, build } = standIn({ status: 1, output: 'esbuild: no such file' })
  const [first, second] = await Promise.all([sharedBuild(runDir, build), sharedBuild(runDir, build)])
  t.equal(calls.length, 1)
  t.match(second, { status: 1, output: 'esbuild: no such file' })
  t.throws(() => serviceCommand(first!, 'worker'), /the service build failed \(1\):\nesbuild: no such file/)
})

t.test('a lock left by a builder that died is taken over; one held by a live one is waited on', async t => {
  const deadDir = tempDir(t)
  const gone = spawnSync(process.execPath, ['-e', ''])
  mkdirSync(join(deadDir, 'service.lock'))
  writeFileSync(join(deadDir, 'service.lock', 'pid'), String(gone.pid))
  const dead = standIn()
  t.match(await sharedBuild(deadDir, dead.build), { status: 0 })
  t.equal(dead.calls.length, 1, 'built by the next process')

  const liveDir = tempDir(t)
  mkdirSync(join(liveDir, 'service.lock'))
  writeFileSync(join(liveDir, 'service.lock', 'pid'), String(process.pid))
  const live = standIn()
  const waiting = sharedBuild(liveDir, live.build)
  await new Promise(r => setTimeout(r, 300))
  writeFileSync(join(liveDir, 'service.json'), JSON.stringify({ status: 0, output: 'built elsewhere' }))
  t.match(await waiting, { dir: join(liveDir, 'service'), status: 0, output: 'built elsewhere' })
  t.equal(live.calls.length, 0, 'the waiter did not build')
})

t.test('the commands are package.json\'s, pointed at the build, without the test loaders', async t => {
  const build: ServiceBuild = { dir: join(REPO_ROOT, '.cache', 'test-run-x', 'service'), status: 0, output: '' }
  for (const script of ['worker', 'start'] as const) {
    const { command, env } = serviceCommand(build, script)
    const scripted = npmScriptCommand(script)
    t.same(command.slice(0, -1), scripted.slice(0, -1), `${script}: the same Node and flags`)
    t.equal(command.at(-1), join(build.dir, scripted.at(-1)!.replace(/^dist\//, '')), `${script}: the build's program`)
    t.same(env, scriptEnvironment(script), `${script}: the variables the script sets`)
  }
  const worker = serviceCommand(build, 'worker')
  const env = serviceEnvironment(build, worker, { TOOLS_CONFIG: TEST_TOOLS_CONFIG, NODE_OPTIONS: '--import tsx', LOG_LEVEL: 'silent' })
  t.notOk('NODE_OPTIONS' in env, 'no loader reaches the child')
  t.equal(env.TOOLS_CONFIG, join(build.dir, 'test', 'fixtures', 'tools.test.config.json'), 'a test tools config is the build\'s copy (its plugins compiled)')
  t.equal(env.MALLOC_ARENA_MAX, worker.env.MALLOC_ARENA_MAX)
  t.equal(env.LOG_LEVEL, 'silent')
  t.equal(toolsConfig(build, join(REPO_ROOT, 'tools.config.json')), join(REPO_ROOT, 'tools.config.json'), 'any other config is left as given')
})
