// The environment variables the service reads, as one TypeBox schema: each
// variable's type, default, range or pattern, and the text README.md's
// Configuration table shows (scripts/config-table.ts writes that table from
// here; test/kernel/readme-tables.test.ts fails when the two differ).
// core/config.ts validates the environment against it and builds AppConfig.
//
// Besides the JSON Schema keywords, a variable may carry:
//   invalid      the refusal after the variable's name when the value breaks the
//                schema; `{value}` is the value as given, quoted. Secrets and
//                URLs (which may hold a password) leave it out.
//   defaultText  the README's default cell when the default is not a plain
//                value (derived from other variables, or worth a unit).
import { Type, type Static, type TSchema } from 'typebox'

/** SECRET_KEY, ADMIN_API_KEY, BLOG_API_KEY and a stored secret.key: shorter would be guessable. */
export const MIN_SECRET_LENGTH = 16

const NO_CONTROL_CHARACTERS = '^[^\\x00-\\x1f\\x7f]+$'
const CONTROL_CHARACTERS_REFUSED = 'must not contain control characters (a newline, a tab …)'
/** A bare program name (looked up on PATH) or an absolute path to it, not to a folder. */
const PROGRAM = '^([\\w.+-]+|/[^\\x00-\\x1f\\x7f]*[^/\\x00-\\x1f\\x7f])$'

const program = (name: string, variable: string) => Type.String({
  default: name,
  pattern: PROGRAM,
  invalid: `must be a program name found on PATH (e.g. ${name}) or an absolute path to it, got {value}`,
  defaultText: `\`${name}\`, found on \`PATH\``,
  description: `${name}'s binary: a program name looked up on \`PATH\`, or an absolute path (see Media programs). A missing one is a warning at boot; the tools that run it fail fast, refunded, naming \`${variable}\``,
})

export const ConfigSchema = Type.Object({
  HOST: Type.String({
    default: '127.0.0.1',
    pattern: '^[A-Za-z0-9.:_%[\\]-]+$',
    invalid: 'must be a host name or an IP address, got {value}',
    description: 'where the API listens (a host name or IP address)',
  }),
  PORT: Type.Integer({ default: 3000, minimum: 0, maximum: 65535, description: 'the port the API listens on (0–65535)' }),
  DATA_DIR: Type.String({
    default: './data',
    description: 'database file, job artifacts, generated blog images, the generated secret; created at start (must be a directory), made owner-only (0700), the SQLite file and its `-wal`/`-shm` 0600; a shared directory (sticky, like `/tmp`) stops the boot rather than being tightened',
  }),
  ARTIFACTS_DIR: Type.Optional(Type.String({
    defaultText: '`$DATA_DIR/artifacts`',
    description: 'where job files (artifacts) are stored; created 0700 (tightened to 0700 if wider; a sticky shared directory stops the boot, as for `DATA_DIR`), files 0600; must be a directory. Scratch and upload files stay under `DATA_DIR/work` (see Files)',
  })),
  ARTIFACTS_S3_BUCKET: Type.Optional(Type.String({
    // S3 bucket naming rules (lower case, 3–63, no leading/trailing dot or hyphen); R2 and MinIO follow them.
    pattern: '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$',
    invalid: 'must be a bucket name (3–63 lower-case letters, digits, dots and hyphens), got {value}',
    defaultText: 'unset: job files in `ARTIFACTS_DIR`',
    description: 'an S3-compatible bucket (AWS S3, MinIO, R2 …) that holds job files instead, so every API process and worker serves the same files; a bucket name (3–63 lower-case letters, digits, `.`, `-`). Set, it needs the region and both keys below (a missing one stops the boot naming it); the bucket must exist',
  })),
  ARTIFACTS_S3_REGION: Type.Optional(Type.String({
    pattern: '^[a-z0-9-]{2,32}$',
    invalid: 'must be a region name such as us-east-1 (or auto for R2), got {value}',
    description: 'the bucket\'s region (`us-east-1`; `auto` for R2; MinIO accepts `us-east-1`)',
  })),
  ARTIFACTS_S3_ENDPOINT: Type.Optional(Type.String({
    pattern: '^https?://',
    invalid: 'must be a http:// or https:// URL',
    defaultText: 'unset: AWS S3',
    description: 'the service\'s `http(s)://` URL for MinIO, R2, Ceph … (the operator\'s own service: reached directly, not through the tool network guard or `PROXY_URL`)',
  })),
  ARTIFACTS_S3_ACCESS_KEY_ID: Type.Optional(Type.String({
    pattern: '^[\\x21-\\x7e]+$',
    invalid: 'must not contain spaces or control characters',
    description: 'the id of the key pair requests are signed with (SigV4; it needs `s3:PutObject`, `GetObject`, `DeleteObject`, `ListBucket` on the bucket)',
  })),
  ARTIFACTS_S3_SECRET_ACCESS_KEY: Type.Optional(Type.String({
    pattern: NO_CONTROL_CHARACTERS,
    invalid: CONTROL_CHARACTERS_REFUSED,
    description: 'the secret of that key pair; a credential: scrubbed from every log line and text that leaves the server',
  })),
  ARTIFACTS_S3_FORCE_PATH_STYLE: Type.Boolean({
    default: false,
    description: '`1`: `endpoint/bucket/key` addressing instead of `bucket.endpoint/key` (MinIO and most self-hosted stores need it)',
  }),
  ARTIFACTS_S3_PREFIX: Type.Optional(Type.String({
    // AWS's safe characters only, no absolute path, no '.' or '..' segment, no empty one: keys stay under the prefix.
    pattern: '^(?!/)(?!.*//)(?!(?:.*/)?\\.{1,2}(?:/|$))[A-Za-z0-9!_.*\'()/-]+$',
    invalid: 'must be a relative key prefix of letters, digits and !_.*\'()/- (no leading \'/\', no \'..\'), got {value}',
    defaultText: 'none',
    description: 'prepended to every object key (`<prefix>/<job_id>/<file_id>`), to share a bucket; letters, digits and `!_.*\'()/-`, no leading `/`, no `..`',
  })),
  DATABASE_URL: Type.Optional(Type.String({
    pattern: '^(file:|postgres(ql)?://)',
    invalid: 'must start with file: (SQLite) or postgresql:// (PostgreSQL)',
    defaultText: '`file:$DATA_DIR/app.db`',
    description: '`file:…` = SQLite (embedded); `postgresql://…` = PostgreSQL; the same migrations run at start on either',
  })),
  SECRET_KEY: Type.Optional(Type.String({
    minLength: MIN_SECRET_LENGTH,
    invalid: `must be at least ${MIN_SECRET_LENGTH} characters`,
    defaultText: 'generated into `DATA_DIR/secret.key` (mode 0600) at first start',
    description: 'encrypts the recoverable copy of personal keys (AES-256-GCM); at least 16 characters; a `secret.key` file shorter than that (or empty) stops the boot, naming the file',
  })),
  ADMIN_API_KEY: Type.Optional(Type.String({
    minLength: MIN_SECRET_LENGTH,
    invalid: `must be at least ${MIN_SECRET_LENGTH} characters`,
    defaultText: 'unset: admin endpoints answer 403',
    description: 'the admin master key (`x-api-key`); at least 16 characters',
  })),
  BLOG_API_KEY: Type.Optional(Type.String({
    minLength: MIN_SECRET_LENGTH,
    invalid: `must be at least ${MIN_SECRET_LENGTH} characters`,
    description: 'the older `X-Blog-Key`, accepted on blog writes only; at least 16 characters',
  })),
  PUBLIC_TOKENS: Type.Optional(Type.String({
    pattern: '^\\s*(pub-[^,]*)?(,\\s*(pub-[^,]*)?)*$',
    invalid: 'must be a comma-separated list of tokens that start with "pub-"',
    defaultText: 'none',
    description: 'comma-separated `pub-…` guest tokens',
  })),
  RATE_LIMIT_PER_MINUTE: Type.Integer({ default: 60, minimum: 1, maximum: 1_000_000, description: 'per-IP requests per minute' }),
  RATE_LIMIT_PRO_PER_MINUTE: Type.Integer({ default: 600, minimum: 1, maximum: 1_000_000, description: 'per-IP limit when the request carries a Pro key' }),
  // Its addresses and CIDRs are checked in core/config.ts (trustProxyFrom).
  TRUST_PROXY: Type.Optional(Type.String({
    defaultText: '`0`',
    description: 'who the client is behind reverse proxies. `0`: no proxy, the client is the connection\'s peer and `X-Forwarded-For` is ignored. A hop count `n`: the service is reachable **only** through `n` proxies; the client is the address the `n`-th proxy saw (`1` = the rightmost `X-Forwarded-For` entry, written by the nearest proxy), so a client writing its own leftmost entries gets no fresh limit. A comma list of proxy addresses/CIDRs (and `loopback`, `linklocal`, `uniquelocal`): those are trusted, the client is the first address from the right that is not one of them (use this when the service is also reachable directly). `true` is refused',
  })),
  ALLOWED_HOSTS: Type.Optional(Type.String({
    defaultText: 'none',
    description: 'comma list of extra `Host` names accepted (any port); see Host and Origin below',
  })),
  ALLOWED_ORIGINS: Type.Optional(Type.String({
    defaultText: 'none',
    description: 'comma list of origins (`https://app.example.com`) accepted in `Origin`; see Host and Origin below',
  })),
  REQUEST_TIMEOUT_MS: Type.Integer({ default: 30_000, minimum: 1000, maximum: 3_600_000, description: 'time a client has to send a whole request (slow-client defence)' }),
  HEADERS_TIMEOUT_MS: Type.Integer({ default: 15_000, minimum: 1000, maximum: 3_600_000, description: 'time a client has to send its headers (slow-client defence); at most `REQUEST_TIMEOUT_MS`' }),
  CONNECTION_TIMEOUT_MS: Type.Integer({ default: 300_000, minimum: 1000, maximum: 86_400_000, description: 'an idle socket is closed after this (longer than `SYNC_WAIT_SECONDS` and agent waits)' }),
  KEEP_ALIVE_TIMEOUT_MS: Type.Integer({ default: 72_000, minimum: 1000, maximum: 3_600_000, description: 'an idle keep-alive connection is closed after this (above a load balancer\'s usual 60 s)' }),
  PASSWORD_HASH_CONCURRENCY: Type.Integer({ default: 2, minimum: 1, maximum: 64, description: 'scrypt runs at once (signup, login, password change)' }),
  PASSWORD_HASH_QUEUE: Type.Integer({ default: 128, minimum: 0, maximum: 10_000, description: 'how many scrypt runs may wait; past that 503 with `Retry-After: 1`' }),
  ALLOW_PRIVATE_TARGETS: Type.Boolean({ default: false, description: '`1` lets tools reach loopback/private/link-local targets (tests, local fixture sites)' }),
  // At least 64 KiB (a sitemap or a search page must fit); at most 1 GiB.
  MAX_RESPONSE_BYTES: Type.Integer({
    default: 5 * 1024 * 1024,
    minimum: 64 * 1024,
    maximum: 1024 ** 3,
    defaultText: '`5242880` (5 MB)',
    description: 'the most decoded bytes of one upstream response body, on every tool fetch (`ctx.http`, crawler pages, sitemaps); a larger `Content-Length` is refused unread, a compression bomb stops at the cap; at least 65536',
  }),
  PROXY_URL: Type.Optional(Type.String({
    pattern: '^(https?|socks[45]?)://',
    invalid: 'must be a http:// or https:// or socks:// or socks4:// or socks5:// URL',
    defaultText: 'none',
    description: 'one outbound proxy for every tool request (`http(s)://` or `socks(4/5)://`): a pool of one; set `PROXY_URLS` instead for several (not both)',
  })),
  PROXY_URLS: Type.Optional(Type.String({
    pattern: '^\\s*(https?|socks[45]?)://',
    invalid: 'must be a comma-separated list of http(s):// or socks(4/5):// URLs',
    defaultText: 'none',
    description: 'outbound proxies (a comma-separated list of `http(s)://` or `socks(4/5)://` URLs) every tool request goes through, in turn (`PROXY_ROTATION`); a tool with `"proxy": "none"` in tools.config.json connects directly',
  })),
  PROXY_ROTATION: Type.Enum(['request', 'job'], { default: 'request', description: '`request`: each request takes the next proxy; `job`: a job keeps the proxy it first got (moving on only when it cools down)' }),
  PROXY_FAILURE_LIMIT: Type.Integer({ default: 3, minimum: 1, maximum: 1000, description: 'failures in a row (a connection to or through the proxy failing before an answer) after which a proxy cools down' }),
  PROXY_COOLDOWN_MS: Type.Integer({ default: 300_000, minimum: 1, maximum: 24 * 3600_000, defaultText: '`300000` (5 min)', description: 'how long a failing proxy is skipped before it is tried again; 1 ms – 24 h' }),
  YTDLP_PATH: program('yt-dlp', 'YTDLP_PATH'),
  FFMPEG_PATH: program('ffmpeg', 'FFMPEG_PATH'),
  FFPROBE_PATH: program('ffprobe', 'FFPROBE_PATH'),
  // yt-dlp's own syntax, RUNTIME[:PATH]: a runtime it knows, then optionally an absolute path to its binary.
  YTDLP_JS_RUNTIME: Type.Optional(Type.String({
    pattern: '^(deno|node|bun|quickjs)(:/[^\\s,]*)?$',
    invalid: 'must be deno, node, bun or quickjs, optionally followed by :/absolute/path/to/its/binary',
    defaultText: 'unset: yt-dlp\'s own default (Deno on `PATH`)',
    description: 'the JavaScript runtime yt-dlp runs the sites\' challenges with, passed on to a yt-dlp new enough to take it (2025.11.12 and newer; with an older one the boot warns and it is not passed; which sites need one: `plugins/lib/media/README.md`); `deno:/path/to/deno` names the binary, e.g. the npm package `deno`\'s (see Media programs)',
  })),
  EXEC_TIMEOUT_MS: Type.Integer({
    default: 600_000,
    minimum: 1000,
    maximum: 7 * 24 * 3600_000,
    defaultText: '`600000` (10 min)',
    description: 'longest one media program run may take unless its tool asks otherwise; past it its whole process group is killed (1000 ms – 7 days; the job\'s own limit still applies)',
  }),
  EXEC_NETWORK_MAX_BYTES: Type.Integer({
    default: 2 * 1024 ** 3,
    minimum: 1024 * 1024,
    maximum: 1024 ** 4,
    defaultText: '`2147483648` (2 GiB)',
    description: 'the most bytes one media program run may move through the egress proxy, both ways; past it its connections are cut and the run fails (refunded); at least 1 MiB',
  }),
  // 15 min of one core: a long HD decode fits; a run (or an orphan) spinning on a hostile input does not go on for ever.
  EXEC_CPU_SECONDS: Type.Integer({
    default: 900,
    minimum: 1,
    maximum: 7 * 24 * 3600,
    description: 'CPU seconds (all threads) one media program run may use, set by the kernel (`RLIMIT_CPU`); past it the run fails as an input error, not refunded (1 – 604800)',
  }),
  // Address space, not RSS: thread stacks and malloc arenas count whole. ffmpeg cutting 3840-wide PNGs from
  // 1080p reserved 0.54 GB with 2 threads, 0.97 GB with 16 and 1.8 GB with 64 filter threads (core/exec/README.md).
  EXEC_MEMORY_MB: Type.Integer({
    default: 2048,
    minimum: 512,
    maximum: 1024 * 1024,
    description: 'address space one media program run may reserve, in MiB (`RLIMIT_AS`; thread stacks count whole, so raise it on machines with more than about 32 cores); past it the run fails as an input error, not refunded (512 – 1048576; ffmpeg alone maps about 300 MB of libraries)',
  }),
  USER_AGENT: Type.String({
    default: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    pattern: NO_CONTROL_CHARACTERS,
    invalid: CONTROL_CHARACTERS_REFUSED,
    defaultText: 'a desktop Chrome string',
    description: 'default `User-Agent` of tool requests (no control characters)',
  }),
  JOB_CONCURRENCY: Type.Integer({ default: 4, minimum: 1, maximum: 256, description: 'jobs run at once by the embedded queue (no `REDIS_URL`)' }),
  JOB_TIMEOUT_SECONDS: Type.Integer({ default: 900, minimum: 1, maximum: 7 * 24 * 3600, description: 'a job running longer is stopped (`error`, refunded); 1–604800' }),
  // Small by default: a worker under tsx with the DOM and phone libraries costs ≈ 60–100 MB while it lives.
  EXTRACT_WORKERS: Type.Integer({ default: 2, minimum: 1, maximum: 64, description: 'worker threads that parse pages (Readability, e-mail/phone/social scans, SERP and product parsers) off the API\'s event loop; started on first use, an idle one exits after 60 s' }),
  EXTRACT_TASK_TIMEOUT_MS: Type.Integer({ default: 15_000, minimum: 100, maximum: 600_000, description: 'longest one page\'s parsing may take; past it the worker is replaced and that page or row gets an error' }),
  EXTRACT_WORKER_MEMORY_MB: Type.Integer({ default: 512, minimum: 32, maximum: 16_384, description: 'heap limit of each extraction worker; a page that needs more gets an error' }),
  JOB_HEARTBEAT_MS: Type.Integer({ default: 5000, minimum: 10, maximum: 600_000, description: 'running-job heartbeat (10 ms – 10 min)' }),
  JOB_SWEEP_INTERVAL_MS: Type.Integer({ default: 60_000, minimum: 10, maximum: 24 * 3600_000, description: 'retention sweep and dead-worker check interval (10 ms – 24 h)' }),
  SYNC_WAIT_SECONDS: Type.Integer({ default: 90, minimum: 1, maximum: 3600, description: 'how long `POST /api/website-email/find` waits before answering 408; 1–3600' }),
  WEBHOOK_RETRY_BASE_MS: Type.Integer({ default: 5000, minimum: 1, maximum: 3600_000, description: 'first webhook retry delay; each next one doubles, up to a quarter of `WEBHOOK_RETRY_WINDOW_MS`; 1 ms – 1 h' }),
  WEBHOOK_RETRY_WINDOW_MS: Type.Integer({ default: 86_400_000, minimum: 1, maximum: 30 * 24 * 3600_000, defaultText: '`86400000` (24 h)', description: 'how long a webhook delivery is retried after its first attempt (or a redelivery); an attempt that would fall later is not made and the delivery is `dead`; 1 ms – 30 days' }),
  LLM_BASE_URL: Type.Optional(Type.String({
    pattern: '^https?://',
    invalid: 'must be a http:// or https:// URL',
    description: 'OpenAI-compatible endpoint (`http(s)://…/v1`) for `POST /api/blog/generate`',
  })),
  LLM_API_KEY: Type.Optional(Type.String({ pattern: NO_CONTROL_CHARACTERS, invalid: CONTROL_CHARACTERS_REFUSED, description: 'the key of `LLM_BASE_URL`' })),
  LLM_MODEL: Type.Optional(Type.String({ pattern: NO_CONTROL_CHARACTERS, invalid: CONTROL_CHARACTERS_REFUSED, description: 'the chat-completions model that writes a generated post' })),
  LLM_TIMEOUT_MS: Type.Integer({ default: 60_000, minimum: 1, maximum: 600_000, description: 'how long each model request may take (1–600000)' }),
  LLM_IMAGE_MODEL: Type.Optional(Type.String({
    pattern: NO_CONTROL_CHARACTERS,
    invalid: CONTROL_CHARACTERS_REFUSED,
    description: 'image model for a generated post\'s featured image (`POST {LLM_BASE_URL}/images/generations`); unset: no image',
  })),
  TOOLS_CONFIG: Type.String({ default: 'tools.config.json', description: 'which tools load, retired keys, upstream URLs, credential variable names, settings' }),
  LOG_LEVEL: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    default: 'info',
    description: 'pino level; logs are JSON lines with keys, tokens, passwords and every configured credential value redacted; at `info`, one access line per request, written when it is answered (method, URL, client address, status, time)',
  }),
  METRICS: Type.Boolean({
    default: true,
    description: 'Prometheus metrics (see Operations): `GET /metrics` with the admin key, and the `METRICS_PORT` listener. `0`: nothing is counted and prom-client is not loaded',
  }),
  METRICS_PORT: Type.Optional(Type.Integer({
    minimum: 0,
    maximum: 65535,
    defaultText: 'unset: only `GET /metrics` on the API port',
    description: 'a second port (on `HOST`) that answers `GET /metrics` without a key, for a scraper on a private network; a worker (`npm run worker`), which has no API port, serves its metrics only here. Each process needs its own port (`0`: one the system picks, logged)',
  })),
  READY_MIN_FREE_MB: Type.Integer({
    default: 500,
    minimum: 0,
    maximum: 10_485_760,
    description: '`GET /api/health/ready` answers 503 when `DATA_DIR`\'s file system has less free space than this, in MB (rows, files and scratch are written there)',
  }),
  OTEL_EXPORTER_OTLP_ENDPOINT: Type.Optional(Type.String({
    pattern: '^https?://',
    invalid: 'must be a http:// or https:// URL',
    defaultText: 'unset: no tracing (the OpenTelemetry SDK is not loaded)',
    description: 'an OpenTelemetry collector\'s base URL: traces are sent to `<url>/v1/traces` (OTLP over HTTP): each request, the job it starts (across the Redis queue into the worker), its upstream requests and media program runs (see Operations)',
  })),
  OTEL_SERVICE_NAME: Type.String({
    default: 'extraction-jobs',
    pattern: NO_CONTROL_CHARACTERS,
    invalid: CONTROL_CHARACTERS_REFUSED,
    description: 'the `service.name` of the traces this process sends',
  }),
  OTEL_TRACE_STATUS_POLLS: Type.Boolean({
    default: false,
    description: 'whether a job\'s status poll (`GET /api/tool-run/:id/status`) gets a request span. Off by default: polls are most requests and say nothing of the job, whose trace starts at its start request; `1` traces them like every other request',
  }),
  OTEL_TRACES_SAMPLER: Type.Enum(['parentbased_always_on', 'always_on', 'always_off', 'traceidratio', 'parentbased_always_off', 'parentbased_traceidratio'], {
    default: 'parentbased_always_on',
    description: 'which traces are recorded, by OpenTelemetry\'s sampler names: every one by default (following a caller\'s `traceparent` flag); `parentbased_traceidratio` with `OTEL_TRACES_SAMPLER_ARG=0.1` keeps one in ten. A request the sampler drops gets no span and no context, so it costs what an untraced one does (see Operations)',
  }),
  OTEL_TRACES_SAMPLER_ARG: Type.Number({
    default: 1,
    minimum: 0,
    maximum: 1,
    description: 'the share of traces `traceidratio` and `parentbased_traceidratio` keep, 0–1',
  }),
  // One origin, checked in core/config.ts (publicOrigin).
  PUBLIC_URL: Type.Optional(Type.String({
    defaultText: 'unset: the address each request was sent to',
    description: 'the service\'s public origin (`https://jobs.example.com`, no path), what the web pages\' canonical and Open Graph URLs start with (see Web pages); set it when the service is reachable under a name its `Host` check does not pin',
  })),
  REDIS_URL: Type.Optional(Type.String({
    pattern: '^rediss?://',
    invalid: 'must be a redis:// or rediss:// URL',
    description: '`redis://` or `rediss://`: the distributed mode (see Scale-out). Jobs go through a BullMQ queue in this Redis, run by `npm run worker` processes; job events (WebSocket, MCP progress, sync waits), the per-IP rate limit, the per-account admission lock and the plugins\' shared state (engine health, politeness turns) live in it, shared by every process. Unset: one process runs everything, as above',
  })),
  // Its default depends on REDIS_URL: core/config.ts.
  RUN_JOBS: Type.Optional(Type.Boolean({
    defaultText: '`1` without `REDIS_URL`, `0` with it',
    description: 'whether this process runs jobs. With `REDIS_URL`, an API process only offers jobs to the queue unless `RUN_JOBS=1`; `npm run worker` always runs them. `0` without `REDIS_URL` is refused (nobody would run the jobs)',
  })),
  WORKER_CONCURRENCY: Type.Integer({ default: 2, minimum: 1, maximum: 256, description: 'jobs one process runs at once off the Redis queue (a worker, or an API process with `RUN_JOBS=1`); 1–256. `JOB_CONCURRENCY` is the embedded queue\'s' }),
  WORKER_SHUTDOWN_GRACE_MS: Type.Integer({ default: 10_000, minimum: 0, maximum: 3_600_000, description: 'on SIGTERM, how long a process running jobs off the Redis queue lets them go on (it takes no new ones) before handing the rest back to the queue; 0 – 1 h' }),
  REDIS_KEY_PREFIX: Type.String({
    default: 'ejs',
    pattern: '^[A-Za-z0-9_.-]{1,64}$',
    invalid: 'must be 1 to 64 letters, digits, \'_\', \'.\' or \'-\', got {value}',
    description: 'the first part of the job queue\'s Redis keys (`<prefix>:jobs:…`): deployments (or test apps) sharing one Redis keep their queues apart with different prefixes; letters, digits, `_ . -` (the shared state\'s keys are fixed, `core/redis/README.md`)',
  }),
}, { additionalProperties: false })

/** The environment once validated: numbers and booleans decoded, defaults filled, unset optional ones absent. */
export type ConfigValues = Static<typeof ConfigSchema>
export type ConfigVariable = keyof ConfigValues

/** One variable's schema with the options above. */
export type VariableSchema = TSchema & {
  type?: string
  enum?: readonly string[]
  default?: unknown
  minimum?: number
  maximum?: number
  minLength?: number
  description: string
  invalid?: string
  defaultText?: string
}

/** The variables in the README's order, each with its schema. */
export function configVariables (): Array<[ConfigVariable, VariableSchema]> {
  return Object.entries(ConfigSchema.properties) as unknown as Array<[ConfigVariable, VariableSchema]>
}
