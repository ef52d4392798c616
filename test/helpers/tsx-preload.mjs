// Preloaded into every tap test process by `npm test` (scripts/test.mjs puts it in
// NODE_OPTIONS, whose --import runs before tap's own). tap 21 compiles each test
// process's TypeScript with ts-node, uncached: about 4 s of CPU per test file,
// a third of the suite. esbuild with an on-disk cache does the same work in a
// fraction of that: ts-load-hooks.mjs, a load hook (TEST_LOADER=tsx uses tsx, which
// did it before at ≈ 0.6 s more CPU a process). @tapjs/typescript skips ts-node when TAP_TYPE_STRIP_ONLY
// is 1 at the moment its import runs; on Node 20 tap's runner resets that
// variable to 0 for its children, so it is set here, in the test process itself.
import { register } from 'node:module'

if (process.env.TAP_CHILD_ID !== undefined) {
  process.env.TAP_TYPE_STRIP_ONLY = '1'
  // TypeBox from the run's bundle, and tap's unused mock and processinfo hooks left out (test-process-hooks.mjs).
  const skipUnusedTapHooks = process.env.TEST_TAP_HOOKS !== 'all'
  register(new URL('./test-process-hooks.mjs', import.meta.url), { data: { typeboxDir: process.env.TEST_TYPEBOX_BUNDLE || null, skipUnusedTapHooks } })
  if (process.env.TEST_LOADER === 'tsx') {
    await import('tsx')
  } else {
    // tsx's work with less of its cost: ts-load-hooks.mjs (why, and what it leaves out), registered by ts-load.mjs.
    await import('./ts-load.mjs')
  }
  // TEST_CPU_LOG=<file>: each test process appends its file and CPU time (ms) at exit,
  // the per-file measure behind scripts/bench/README.md's suite tables.
  if (process.env.TEST_CPU_LOG) {
    const { appendFileSync, readFileSync } = await import('node:fs')
    const log = process.env.TEST_CPU_LOG
    process.on('exit', () => {
      const { user, system } = process.cpuUsage()
      // Children the process waited for (servers, yt-dlp, ffmpeg): cutime and cstime, in clock ticks (100 a second).
      const line = readFileSync('/proc/self/stat', 'utf8')
      const stat = line.slice(line.lastIndexOf(')') + 2).split(' ')
      const childrenMs = (Number(stat[13]) + Number(stat[14])) * 10
      appendFileSync(log, `${Math.round((user + system) / 1000)}\t${childrenMs}\t${Math.round(process.uptime() * 1000)}\t${process.argv[1]}\n`)
    })
  }
  // Programs a test starts (a `-e` script on the source with sourceLoaderFlags(), the
  // compiled service, Node 22 for the MCP conformance suite) bring their own loader: they do not inherit this one, nor
  // tap's processinfo hook (the runner puts it in NODE_OPTIONS for coverage).
  const dropped = skipUnusedTapHooks ? ['tsx-preload.mjs', '@tapjs/processinfo'] : ['tsx-preload.mjs']
  process.env.NODE_OPTIONS = (process.env.NODE_OPTIONS ?? '').split(' ').filter(o => !dropped.some(name => o.includes(name))).join(' ')
}
