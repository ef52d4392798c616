import t from 'tap'
import { existsSync, readdirSync, statSync, writeFileSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { ConfigError, loadConfig } from '../../core/config.ts'
import { prepareDataDirs } from '../../core/data-dir.ts'
import { build, tempDir } from '../helpers/build.ts'
import { prepareServiceBuild, runServiceToExit } from '../helpers/service-build.ts'

// The boot-failure check at the end starts the compiled service: its build goes on meanwhile.
prepareServiceBuild()

/** Every variable of the README's Configuration table (a row may name several: `A` / `B`). */
function readmeVariables (): string[] {
  const readme = readFileSync(resolve('README.md'), 'utf8')
  const section = readme.split(/^## Configuration$/m)[1]!.split(/^## /m)[0]!
  const names = new Set<string>()
  for (const line of section.split('\n')) {
    if (!line.startsWith('| `')) continue
    const firstCell = line.split('|')[1]!
    for (const m of firstCell.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(m[1]!)
  }
  return [...names]
}

const base = (dir: string) => ({ DATA_DIR: dir, SECRET_KEY: 'a-secret-of-sixteen+', TOOLS_CONFIG: resolve('tools.config.json') })
/** What a start does with an environment: read it, then ready the folders and the secret. */
const boot = (env: Record<string, string | undefined>) => prepareDataDirs(loadConfig(env))

t.test('each bad value stops the boot (loadConfig, or the data-dir step for folders) with a message naming it', async t => {
  const dir = tempDir(t)
  const toolsBad = join(dir, 'tools-bad.json')
  writeFileSync(toolsBad, JSON.stringify({ tools: [{ key: 'a', plugin: null, enabled: 'yes' }], retired: [] }))
  const toolsDup = join(dir, 'tools-dup.json')
  writeFileSync(toolsDup, JSON.stringify({ tools: [{ key: 'a', plugin: null, enabled: true }], retired: [{ key: 'a', replacement: null }] }))
  const aFile = join(dir, 'a-file')
  writeFileSync(aFile, 'x')
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ HOST: 'not a host' }, /HOST/],
    [{ HOST: 'http://x' }, /HOST/],
    [{ DATA_DIR: aFile }, /DATA_DIR/],
    [{ DATA_DIR: join(aFile, 'below') }, /DATA_DIR/],
    [{ ARTIFACTS_DIR: aFile }, /ARTIFACTS_DIR/],
    [{ DATABASE_URL: `file:${join(aFile, 'app.db')}` }, /DATABASE_URL/],
    [{ BLOG_API_KEY: 'short' }, /BLOG_API_KEY/],
    [{ USER_AGENT: 'bot\r\nX-Injected: 1' }, /USER_AGENT/],
    [{ REDIS_URL: 'localhost:6379' }, /REDIS_URL/],
    [{ REDIS_URL: 'http://127.0.0.1:6379' }, /REDIS_URL/],
    [{ PUBLIC_URL: 'jobs.example.com' }, /PUBLIC_URL/],
    [{ PUBLIC_URL: 'https://jobs.example.com/app' }, /PUBLIC_URL/],
    [{ PUBLIC_URL: 'https://a.example.com,https://b.example.com' }, /PUBLIC_URL/],
    [{ RUN_JOBS: 'sometimes' }, /RUN_JOBS/],
    // Without the Redis queue nobody else would run this process's jobs.
    [{ RUN_JOBS: '0' }, /RUN_JOBS/],
    [{ REDIS_URL: 'redis://127.0.0.1:6379', WORKER_CONCURRENCY: '0' }, /WORKER_CONCURRENCY/],
    [{ WORKER_CONCURRENCY: 'two' }, /WORKER_CONCURRENCY/],
    [{ WORKER_SHUTDOWN_GRACE_MS: '10s' }, /WORKER_SHUTDOWN_GRACE_MS/],
    [{ REDIS_KEY_PREFIX: 'a b' }, /REDIS_KEY_PREFIX/],
    [{ REDIS_KEY_PREFIX: 'with:colon' }, /REDIS_KEY_PREFIX/],
    [{ PROXY_URL: 'ftp://proxy.example' }, /PROXY_URL/],
    [{ LLM_BASE_URL: 'file:///etc/passwd' }, /LLM_BASE_URL/],
    [{ LLM_API_KEY: 'sk-a\nb' }, /LLM_API_KEY/],
    [{ LLM_MODEL: 'gpt\u0000' }, /LLM_MODEL/],
    [{ LLM_IMAGE_MODEL: 'img\tmodel' }, /LLM_IMAGE_MODEL/],
    [{ LLM_TIMEOUT_MS: 'soon' }, /LLM_TIMEOUT_MS/],
    [{ LLM_TIMEOUT_MS: '0' }, /LLM_TIMEOUT_MS/],
    // The job timings used to be read raw where they were used: "abc" became NaN and timed every job out at once.
    [{ JOB_TIMEOUT_SECONDS: 'abc' }, /JOB_TIMEOUT_SECONDS/],
    [{ JOB_TIMEOUT_SECONDS: '0' }, /JOB_TIMEOUT_SECONDS/],
    [{ JOB_HEARTBEAT_MS: '5s' }, /JOB_HEARTBEAT_MS/],
    [{ JOB_HEARTBEAT_MS: '0' }, /JOB_HEARTBEAT_MS/],
    [{ JOB_SWEEP_INTERVAL_MS: '-1' }, /JOB_SWEEP_INTERVAL_MS/],
    [{ JOB_SWEEP_INTERVAL_MS: '1e3' }, /JOB_SWEEP_INTERVAL_MS/],
    [{ SYNC_WAIT_SECONDS: 'ninety' }, /SYNC_WAIT_SECONDS/],
    [{ SYNC_WAIT_SECONDS: '0' }, /SYNC_WAIT_SECONDS/],
    [{ WEBHOOK_RETRY_BASE_MS: '1.5' }, /WEBHOOK_RETRY_BASE_MS/],
    [{ WEBHOOK_RETRY_BASE_MS: '0' }, /WEBHOOK_RETRY_BASE_MS/],
    [{ WEBHOOK_RETRY_WINDOW_MS: '0' }, /WEBHOOK_RETRY_WINDOW_MS/],
    [{ PROXY_URLS: 'ftp://a.example' }, /PROXY_URLS/],
    [{ PROXY_URLS: 'http://a.example:3128, ftp://b.example' }, /PROXY_URLS: "ftp:\/\/b.example"/],
    [{ PROXY_URLS: 'http://a.example:3128', PROXY_URL: 'http://b.example:3128' }, /not both/],
    [{ PROXY_ROTATION: 'session' }, /PROXY_ROTATION/],
    [{ PROXY_FAILURE_LIMIT: '0' }, /PROXY_FAILURE_LIMIT/],
    [{ PROXY_COOLDOWN_MS: '-1' }, /PROXY_COOLDOWN_MS/],
    [{ PORT: 'abc' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ RATE_LIMIT_PER_MINUTE: '0' }, /RATE_LIMIT_PER_MINUTE/],
    [{ RATE_LIMIT_PER_MINUTE: 'ten' }, /RATE_LIMIT_PER_MINUTE/],
    [{ RATE_LIMIT_PRO_PER_MINUTE: '-1' }, /RATE_LIMIT_PRO_PER_MINUTE/],
    [{ JOB_CONCURRENCY: '1.5' }, /JOB_CONCURRENCY/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
    [{ DATABASE_URL: 'file:' }, /DATABASE_URL/],
    [{ PUBLIC_TOKENS: 'pub-ok,notpub' }, /PUBLIC_TOKENS/],
    [{ ADMIN_API_KEY: 'short' }, /ADMIN_API_KEY/],
    [{ SECRET_KEY: 'short' }, /SECRET_KEY/],
    [{ ALLOW_PRIVATE_TARGETS: 'maybe' }, /ALLOW_PRIVATE_TARGETS/],
    [{ TRUST_PROXY: 'true' }, /TRUST_PROXY/],
    [{ TRUST_PROXY: '10.0.0.0/99' }, /TRUST_PROXY/],
    [{ TRUST_PROXY: 'proxy.internal' }, /TRUST_PROXY/],
    [{ ALLOWED_HOSTS: 'https://x.example' }, /ALLOWED_HOSTS/],
    [{ ALLOWED_ORIGINS: 'app.example.com' }, /ALLOWED_ORIGINS/],
    [{ REQUEST_TIMEOUT_MS: '5000', HEADERS_TIMEOUT_MS: '9000' }, /HEADERS_TIMEOUT_MS/],
    [{ REQUEST_TIMEOUT_MS: '30s' }, /REQUEST_TIMEOUT_MS/],
    [{ CONNECTION_TIMEOUT_MS: '10' }, /CONNECTION_TIMEOUT_MS/],
    [{ KEEP_ALIVE_TIMEOUT_MS: 'long' }, /KEEP_ALIVE_TIMEOUT_MS/],
    [{ PASSWORD_HASH_CONCURRENCY: '0' }, /PASSWORD_HASH_CONCURRENCY/],
    [{ PASSWORD_HASH_QUEUE: '-5' }, /PASSWORD_HASH_QUEUE/],
    [{ MAX_RESPONSE_BYTES: '1024' }, /MAX_RESPONSE_BYTES/],
    [{ EXTRACT_WORKERS: '0' }, /EXTRACT_WORKERS/],
    [{ EXTRACT_TASK_TIMEOUT_MS: 'fast' }, /EXTRACT_TASK_TIMEOUT_MS/],
    [{ EXTRACT_WORKER_MEMORY_MB: '8' }, /EXTRACT_WORKER_MEMORY_MB/],
    [{ PROXY_URL: 'not a url' }, /PROXY_URL/],
    // A relative path would depend on the directory the server starts from; a name must be a bare program name.
    [{ YTDLP_PATH: './bin/yt-dlp' }, /YTDLP_PATH/],
    [{ FFMPEG_PATH: 'ffmpeg --enable-everything' }, /FFMPEG_PATH/],
    [{ FFPROBE_PATH: '/usr/bin/' }, /FFPROBE_PATH/],
    [{ FFPROBE_PATH: '/usr/bin/ff\tprobe' }, /FFPROBE_PATH/],
    [{ EXEC_TIMEOUT_MS: '10' }, /EXEC_TIMEOUT_MS/],
    [{ EXEC_TIMEOUT_MS: '10m' }, /EXEC_TIMEOUT_MS/],
    [{ EXEC_NETWORK_MAX_BYTES: '1000' }, /EXEC_NETWORK_MAX_BYTES/],
    [{ EXEC_CPU_SECONDS: '0' }, /EXEC_CPU_SECONDS/],
    [{ EXEC_CPU_SECONDS: '1.5' }, /EXEC_CPU_SECONDS/],
    [{ EXEC_MEMORY_MB: '64' }, /EXEC_MEMORY_MB/],
    [{ YTDLP_JS_RUNTIME: 'python' }, /YTDLP_JS_RUNTIME must be deno, node, bun or quickjs/],
    [{ YTDLP_JS_RUNTIME: 'deno:relative/deno' }, /YTDLP_JS_RUNTIME/],
    [{ EXEC_MEMORY_MB: '2G' }, /EXEC_MEMORY_MB/],
    [{ LLM_BASE_URL: '::' }, /LLM_BASE_URL/],
    [{ METRICS: 'sometimes' }, /METRICS/],
    [{ OTEL_TRACE_STATUS_POLLS: 'sometimes' }, /OTEL_TRACE_STATUS_POLLS/],
    [{ METRICS_PORT: '70000' }, /METRICS_PORT/],
    [{ READY_MIN_FREE_MB: '-1' }, /READY_MIN_FREE_MB/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, /OTEL_EXPORTER_OTLP_ENDPOINT/],
    [{ OTEL_SERVICE_NAME: 'jobs\u0007' }, /OTEL_SERVICE_NAME/],
    [{ OTEL_TRACES_SAMPLER: 'jaeger_remote' }, /OTEL_TRACES_SAMPLER must be one of parentbased_always_on/],
    [{ OTEL_TRACES_SAMPLER_ARG: '1.5' }, /OTEL_TRACES_SAMPLER_ARG must be between 0 and 1, got 1.5/],
    [{ OTEL_TRACES_SAMPLER_ARG: '10%' }, /OTEL_TRACES_SAMPLER_ARG must be a number/],
    // The artifact bucket: each variable is checked even without the bucket; with it, region and both keys are required.
    [{ ARTIFACTS_S3_BUCKET: 'Job_Files' }, /ARTIFACTS_S3_BUCKET/],
    [{ ARTIFACTS_S3_BUCKET: 'job-files', ARTIFACTS_S3_ACCESS_KEY_ID: 'AKIA1', ARTIFACTS_S3_SECRET_ACCESS_KEY: 'secret-1' }, /ARTIFACTS_S3_REGION/],
    [{ ARTIFACTS_S3_REGION: 'us east 1' }, /ARTIFACTS_S3_REGION/],
    [{ ARTIFACTS_S3_BUCKET: 'job-files', ARTIFACTS_S3_REGION: 'auto', ARTIFACTS_S3_SECRET_ACCESS_KEY: 'secret-1' }, /ARTIFACTS_S3_ACCESS_KEY_ID/],
    [{ ARTIFACTS_S3_ACCESS_KEY_ID: 'AKIA 1' }, /ARTIFACTS_S3_ACCESS_KEY_ID/],
    [{ ARTIFACTS_S3_BUCKET: 'job-files', ARTIFACTS_S3_REGION: 'auto', ARTIFACTS_S3_ACCESS_KEY_ID: 'AKIA1' }, /ARTIFACTS_S3_SECRET_ACCESS_KEY/],
    [{ ARTIFACTS_S3_SECRET_ACCESS_KEY: 'secret\n1' }, /ARTIFACTS_S3_SECRET_ACCESS_KEY/],
    [{ ARTIFACTS_S3_ENDPOINT: 'minio.local:9000' }, /ARTIFACTS_S3_ENDPOINT/],
    [{ ARTIFACTS_S3_FORCE_PATH_STYLE: 'sometimes' }, /ARTIFACTS_S3_FORCE_PATH_STYLE/],
    [{ ARTIFACTS_S3_PREFIX: '../other-tenant/' }, /ARTIFACTS_S3_PREFIX/],
    [{ ARTIFACTS_S3_PREFIX: '/abs' }, /ARTIFACTS_S3_PREFIX/],
    [{ TOOLS_CONFIG: join(dir, 'missing.json') }, /TOOLS_CONFIG/],
    [{ TOOLS_CONFIG: toolsBad }, /TOOLS_CONFIG.*enabled/],
    [{ TOOLS_CONFIG: toolsDup }, /TOOLS_CONFIG.*twice/],
  ]
  for (const [env, pattern] of cases) {
    t.throws(() => boot({ ...base(dir), ...env }), { name: 'ConfigError', message: pattern }, JSON.stringify(env))
  }
  // The guard against a setting read raw somewhere else: every variable the README documents has a bad-value case here.
  const covered = new Set(cases.flatMap(([env]) => Object.keys(env)))
  const documented = readmeVariables()
  t.ok(documented.length >= 25, `the README's Configuration table was read (${documented.length} variables)`)
  for (const name of documented) t.ok(covered.has(name), `${name} (README Configuration table) has a bad-value case`)
})

t.test('the job timings are read once, here, and reach the services that use them', async t => {
  const dir = tempDir(t)
  const defaults = loadConfig(base(dir))
  t.match(defaults, { jobTimeoutSeconds: 900, jobHeartbeatMs: 5000, jobSweepIntervalMs: 60_000, syncWaitSeconds: 90, webhookRetryBaseMs: 5000, webhookRetryWindowMs: 86_400_000, proxy: { urls: [], rotation: 'request', failureLimit: 3, cooldownMs: 300_000 }, llm: { timeoutMs: 60_000, imageModel: null } })
  const c = loadConfig({ ...base(dir), JOB_TIMEOUT_SECONDS: '30', JOB_HEARTBEAT_MS: '250', JOB_SWEEP_INTERVAL_MS: '500', SYNC_WAIT_SECONDS: '5', WEBHOOK_RETRY_BASE_MS: '20', PROXY_URLS: ' http://u:p@a.example:3128 ,socks5://b.example:1080,', PROXY_ROTATION: 'job', LLM_TIMEOUT_MS: '1500', LLM_IMAGE_MODEL: 'img-1' })
  t.match(c, { jobTimeoutSeconds: 30, jobHeartbeatMs: 250, jobSweepIntervalMs: 500, syncWaitSeconds: 5, webhookRetryBaseMs: 20, proxy: { urls: ['http://u:p@a.example:3128', 'socks5://b.example:1080'], rotation: 'job' }, llm: { timeoutMs: 1500, imageModel: 'img-1' } })
})

t.test('the artifact bucket: off by default; set, every variable reaches the store config', async t => {
  const dir = tempDir(t)
  t.equal(loadConfig(base(dir)).artifactsS3, null)
  const c = loadConfig({ ...base(dir), ARTIFACTS_S3_BUCKET: 'job-files', ARTIFACTS_S3_REGION: 'auto', ARTIFACTS_S3_ENDPOINT: 'http://127.0.0.1:9000', ARTIFACTS_S3_ACCESS_KEY_ID: 'AKIA1', ARTIFACTS_S3_SECRET_ACCESS_KEY: 'secret-1', ARTIFACTS_S3_FORCE_PATH_STYLE: '1', ARTIFACTS_S3_PREFIX: 'tenant-a/files' })
  t.same(c.artifactsS3, { bucket: 'job-files', region: 'auto', endpoint: 'http://127.0.0.1:9000', accessKeyId: 'AKIA1', secretAccessKey: 'secret-1', forcePathStyle: true, prefix: 'tenant-a/files/' })
})

t.test('the programs\' limits, and the settings their profiles read (their binaries, the JavaScript runtime), as given', async t => {
  const dir = tempDir(t)
  const defaults = loadConfig(base(dir)).exec
  t.match(defaults, { timeoutMs: 600_000, networkMaxBytes: 2 * 1024 ** 3, cpuSeconds: 900, memoryMb: 2048 })
  t.equal(defaults.settings.YTDLP_PATH, undefined, 'unset: the profile\'s own name, on PATH')
  const c = loadConfig({ ...base(dir), YTDLP_PATH: '/opt/yt-dlp/yt-dlp', FFMPEG_PATH: 'ffmpeg7', EXEC_TIMEOUT_MS: '5000', EXEC_NETWORK_MAX_BYTES: '1048576', EXEC_CPU_SECONDS: '60', EXEC_MEMORY_MB: '512', YTDLP_JS_RUNTIME: 'deno:/opt/deno/bin/deno' })
  t.match(c.exec, { settings: { YTDLP_PATH: '/opt/yt-dlp/yt-dlp', FFMPEG_PATH: 'ffmpeg7', YTDLP_JS_RUNTIME: 'deno:/opt/deno/bin/deno' }, timeoutMs: 5000, networkMaxBytes: 1048576, cpuSeconds: 60, memoryMb: 512 })
})

t.test('no kernel or plugin file reads a setting from the environment but config.ts', async t => {
  // Allowed: server.ts and app.ts hand process.env to loadConfig; tool credentials are read by the
  // names tools.config.json gives (config.env[variable]), never by a literal name.
  const literalRead = /process\.env\.[A-Z]|process\.env\[['"`]|\benv\.[A-Z][A-Z0-9_]*\b|\benv\[['"`][A-Z]/
  const offenders: string[] = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) { if (entry.name !== 'generated' && entry.name !== 'node_modules') walk(path); continue }
      if (!entry.name.endsWith('.ts') || path === join('core', 'config.ts')) continue
      readFileSync(path, 'utf8').split('\n').forEach((line, i) => { if (literalRead.test(line)) offenders.push(`${path}:${i + 1}: ${line.trim()}`) })
    }
  }
  walk('core')
  walk('plugins')
  t.same(offenders, [], 'settings are read in core/config.ts only')
})

t.test('without SECRET_KEY one is generated once, kept in DATA_DIR, owner-only', async t => {
  const dir = tempDir(t)
  const a = boot({ ...base(dir), SECRET_KEY: undefined })
  const b = boot({ ...base(dir), SECRET_KEY: '' })
  t.equal(a.secretKey, b.secretKey, 'the same secret on the second start')
  t.ok(a.secretKey.length >= 32)
  t.equal(readFileSync(join(dir, 'secret.key'), 'utf8').trim(), a.secretKey)
  t.equal(statSync(join(dir, 'secret.key')).mode & 0o777, 0o600)
})

t.test('loadConfig only reads: no folder made, no secret written; the data-dir step makes them', async t => {
  const dir = join(tempDir(t), 'data')
  const artifacts = join(tempDir(t), 'files')
  const env = { ...base(dir), ARTIFACTS_DIR: artifacts, SECRET_KEY: undefined }
  const loaded = loadConfig(env)
  t.equal(loaded.secretKey, null, 'no SECRET_KEY: left to the data-dir step')
  t.notOk(existsSync(dir), 'DATA_DIR not made')
  t.notOk(existsSync(artifacts), 'ARTIFACTS_DIR not made')
  // A DATA_DIR that could never be a directory is the data-dir step's refusal, not loadConfig's.
  const aFile = join(tempDir(t), 'a-file')
  writeFileSync(aFile, 'x')
  t.doesNotThrow(() => loadConfig({ ...base(aFile) }))
  const ready = prepareDataDirs(loaded)
  t.equal(statSync(dir).mode & 0o777, 0o700)
  t.equal(statSync(artifacts).mode & 0o777, 0o700)
  t.equal(ready.secretKey, readFileSync(join(dir, 'secret.key'), 'utf8').trim())
  t.same({ ...ready, secretKey: null }, loaded, 'otherwise the configuration read')
  t.equal(prepareDataDirs({ ...loaded, secretKey: 'a-secret-of-sixteen+' }).secretKey, 'a-secret-of-sixteen+', 'SECRET_KEY given: taken as it is')
})

t.test('the schema\'s words: whole numbers and their range, flags, lists of choices, values shown quoted, secrets never', async t => {
  const dir = tempDir(t)
  const refusal = (env: Record<string, string>) => { try { loadConfig({ ...base(dir), ...env }); return 'accepted' } catch (err) { return (err as Error).message } }
  t.equal(refusal({ PORT: 'abc' }), 'PORT must be a whole number, got "abc"')
  t.equal(refusal({ PORT: '70000' }), 'PORT must be between 0 and 65535, got 70000')
  t.equal(refusal({ RUN_JOBS: 'sometimes' }), 'RUN_JOBS must be 1/0 or true/false, got "sometimes"')
  t.equal(refusal({ LOG_LEVEL: 'loud' }), 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "loud"')
  t.equal(refusal({ HOST: 'a\nb' }), 'HOST must be a host name or an IP address, got "a\\nb"', 'a control character is shown escaped')
  t.equal(refusal({ ADMIN_API_KEY: 'admin-short' }), 'ADMIN_API_KEY must be at least 16 characters')
  t.notMatch(refusal({ REDIS_URL: 'http://user:hunter2@redis' }), /hunter2/, 'a URL (it may hold a password) is not repeated')
  // Blank is unset: the default applies.
  t.equal(loadConfig({ ...base(dir), PORT: '  ', LOG_LEVEL: '' }).port, 3000)
  t.equal(loadConfig({ ...base(dir), PORT: ' 8080 ' }).port, 8080)
})

t.test('buildApp refuses a bad config', async t => {
  await t.rejects(build(t, { env: { RATE_LIMIT_PRO_PER_MINUTE: 'lots' } }), ConfigError)
  await t.rejects(build(t, { env: { JOB_TIMEOUT_SECONDS: 'abc' } }), /JOB_TIMEOUT_SECONDS/)
})

t.test('npm start with a bad value exits with a message naming it', async t => {
  const dir = tempDir(t)
  // package.json's start command on this run's build of the source (test/helpers/service-build.ts).
  const res = await runServiceToExit('start', { ...base(dir), PORT: '0', RATE_LIMIT_PER_MINUTE: 'sixty' })
  t.not(res.status, 0, 'non-zero exit')
  t.match(res.stderr, /RATE_LIMIT_PER_MINUTE/)
  // The compiled code's frames would name core/config.ts (source maps) or a .js file.
  t.notMatch(res.stderr, /at loadConfig|\.[jt]s:\d+/, 'a message, not a stack')
})
