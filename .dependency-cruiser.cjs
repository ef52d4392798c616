// dependency-cruiser's rules for the import graph (`npm run lint:deps`): a
// broken rule fails with its name. core/README.md says what the layers, the
// features, the composition root and the plugins are; the paths below are
// those definitions, so a new file lands on a floor by where it sits and how
// it is named.
const { join } = require('node:path')

// The composition root: builds the app with its features, starts processes.
const ROOT = '^core/(app|server|worker)\\.ts$'
const FEATURES = '^core/features/'
// The HTTP layer: the app builder, fastify's decorations and hooks, error
// answers, route conventions, OpenAPI, and every routes plugin.
const HTTP = [
  '^core/(kernel-app|feature|fastify-types|http-errors|html-error-pages|accept-header|security-headers|response-serializer|route-defaults|route-params)\\.ts$',
  '^core/openapi/',
  '^core/[^/]+/[^/]*routes\\.ts$',
  '^core/auth/(auth-plugin|host-origin-guard)\\.ts$',
  '^core/events/progress-socket\\.ts$',
]
// The domain: the tool contract and registry, configuration, the database,
// the clock and the error catalogue, and the small pure helpers they use
// (core/tools/ less its routes files, which are HTTP: IN_DOMAIN).
// The tool state's port and its in-process implementation are the registry's;
// the Redis implementation is a service.
const DOMAIN = [
  '^core/tools/',
  '^core/db/',
  '^core/(config|config-schema|clock|errors|bounded-map|semaphore|crypto|code-location|body-depth)\\.ts$',
  '^core/shared-state/(shared-state|memory-shared-state)\\.ts$',
]
// The services: every other kernel file (jobs, accounts, quotas, agent,
// artifacts, auth's principal and guards, exec, events, exports, net,
// workers, shared state over Redis, redis, secrets, the logger, the container).
const KERNEL = '^core/'
const IN_DOMAIN = { path: DOMAIN, pathNot: HTTP }
const NOT_SERVICE = [ROOT, FEATURES, ...HTTP, ...DOMAIN]

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No kernel or plugin module reaches itself through its imports, type-only imports included: a circle is a pair of modules that cannot be read, tested or moved apart. A plugin\'s run.ts takes its input and row types from the plugin\'s schema module, never from its index.ts (which loads run.ts).',
      severity: 'error',
      from: { path: [KERNEL, '^plugins/'] },
      to: { circular: true },
    },
    {
      name: 'no-circular-folders',
      comment: 'No two kernel folders depend on each other, directly (core/jobs imports core/artifacts and core/artifacts imports core/jobs) or around a loop of folders: a folder is a unit a reader can understand from the folders below it. Folder scope: every module of a folder counts (options.metrics derives the folders).',
      severity: 'error',
      scope: 'folder',
      from: { path: '^core/', pathNot: '^core/features(/|$)' },
      to: { circular: true },
    },
    {
      name: 'domain-imports-no-service',
      comment: 'The domain (tool contract and registry, config, database, clock, errors) imports no service: services are built on it (core/README.md, Layers).',
      severity: 'error',
      from: IN_DOMAIN,
      to: { path: KERNEL, pathNot: [...DOMAIN, ...HTTP, ROOT, FEATURES] },
    },
    {
      name: 'domain-imports-no-http',
      comment: 'The domain imports nothing of the HTTP layer (routes, route defaults, error answers, fastify types, the app builder).',
      severity: 'error',
      from: IN_DOMAIN,
      to: { path: HTTP },
    },
    {
      name: 'service-imports-no-http',
      comment: 'A service imports nothing of the HTTP layer: routes call services, never the other way (core/README.md, Layers).',
      severity: 'error',
      from: { path: KERNEL, pathNot: NOT_SERVICE },
      to: { path: HTTP },
    },
    {
      name: 'kernel-imports-no-composition-root',
      comment: 'Only the composition root (core/app.ts, server.ts, worker.ts) imports the composition root.',
      severity: 'error',
      from: { path: KERNEL, pathNot: [ROOT] },
      to: { path: ROOT },
    },
    {
      name: 'kernel-imports-no-feature',
      comment: 'The kernel (core/ outside core/features/ and the composition root core/app.ts) never imports a feature: a feature is registered by core/app.ts through core/feature.ts and uses the kernel, never the other way (core/README.md).',
      severity: 'error',
      from: { path: '^core/', pathNot: ['^core/features/', '^core/app\\.ts$'] },
      to: { path: '^core/features/' },
    },
    {
      name: 'kernel-imports-no-plugin',
      comment: 'No kernel or feature file imports a plugin or the plugin library: the registry finds plugins through tools.config.json.',
      severity: 'error',
      from: { path: KERNEL },
      to: { path: '^plugins/' },
    },
    {
      name: 'plugins-import-only-contract-and-lib',
      comment: 'A plugin reaches the kernel only through the contract (core/tools/contract.ts), and other folders of plugins/ only through plugins/lib/.',
      severity: 'error',
      from: { path: '^plugins/([^/]+)/', pathNot: '^plugins/(lib/)?[^/]+/dashboard/' },
      to: { path: '^(core|plugins|prisma|scripts|test)/', pathNot: ['^core/tools/contract\\.ts$', '^plugins/lib/', '^plugins/$1/'] },
    },
    {
      name: 'plugin-dashboard-views-import-only-the-view-kit',
      comment: "A tool's dashboard view (browser code in its plugin's dashboard/ folder, declared in dashboardViews) imports only its own folder and the dashboard's view kit: the one named exception to the rule above.",
      severity: 'error',
      from: { path: '^(plugins/(?:lib/)?[^/]+/dashboard)/' },
      to: { path: '^(core|plugins|prisma|scripts|test)/', pathNot: ['^core/features/web/dashboard/client/view-kit\\.ts$', '^$1/'] },
    },
  ],
  options: {
    // Folder-level dependencies (no-circular-folders) are derived with the metrics.
    metrics: true,
    doNotFollow: { path: ['node_modules', '^prisma/generated/'] },
    // Type-only imports are imports too: a kernel type that names a feature's type is a dependency on it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: join(__dirname, 'tsconfig.json') },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'] },
  },
}
