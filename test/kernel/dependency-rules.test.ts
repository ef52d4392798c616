// The dependency-cruiser rules (.dependency-cruiser.cjs, `npm run lint:deps`):
// the repository keeps them, and a broken rule fails with its name.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { tempDir } from '../helpers/build.ts'

const root = resolve('.')
const depcruise = (cwd: string, ...paths: string[]) => spawnSync(join(root, 'node_modules/.bin/depcruise'), [...paths, '--config', join(root, '.dependency-cruiser.cjs')], { cwd, encoding: 'utf8' })

t.test('npm run lint:deps passes on the repository', async t => {
  const run = spawnSync('npm', ['run', '--silent', 'lint:deps'], { cwd: root, encoding: 'utf8' })
  t.equal(run.status, 0, 'no rule broken')
  t.match(run.stdout + run.stderr, /no dependency violations found/)
})

t.test('kernel-imports-no-feature: a kernel file that imports a feature fails with the rule\'s name', async t => {
  const dir = tempDir(t)
  const files: Record<string, string> = {
    'core/features/blog/feature.ts': 'export const blogFeature = { name: \'blog\' }\n',
    'core/features/blog/posts.ts': 'export interface Post { title: string }\n',
    'core/features/web/feature.ts': 'import { blogFeature } from \'../blog/feature.ts\'\nexport const webFeature = { name: \'web\', after: blogFeature }\n',
    // The composition root registers features: allowed.
    'core/app.ts': 'import { blogFeature } from \'./features/blog/feature.ts\'\nexport const FEATURES = [blogFeature]\n',
    'core/jobs/job-service.ts': 'import { blogFeature } from \'../features/blog/feature.ts\'\nexport const x = blogFeature\n',
    // A type is a dependency too.
    'core/errors.ts': 'import type { Post } from \'./features/blog/posts.ts\'\nexport type P = Post\n',
  }
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  const run = depcruise(dir, 'core')
  t.not(run.status, 0, 'the run fails')
  const out = run.stdout + run.stderr
  t.match(out, /kernel-imports-no-feature: core\/jobs\/job-service\.ts → core\/features\/blog\/feature\.ts/)
  t.match(out, /kernel-imports-no-feature: core\/errors\.ts → core\/features\/blog\/posts\.ts/)
  t.notMatch(out, /core\/app\.ts →/, 'the composition root may')
  t.notMatch(out, /core\/features\/web\/feature\.ts →/, 'a feature may import a feature')
})

t.test('the layer, circle and plugin rules: each broken one fails with its name', async t => {
  const dir = tempDir(t)
  const files: Record<string, string> = {
    'core/errors.ts': 'export const badRequest = (detail: string) => new Error(detail)\n',
    'core/route-defaults.ts': 'export const routeDefaults = () => {}\n',
    // The domain imports a service (the jobs service) and the HTTP layer (route defaults).
    'core/tools/registry.ts': 'import { JobService } from \'../jobs/job-service.ts\'\nimport { routeDefaults } from \'../route-defaults.ts\'\nexport const registry = [JobService, routeDefaults]\n',
    // A service imports the HTTP layer (a routes file) and the composition root.
    'core/jobs/job-service.ts': 'import { badRequest } from \'../errors.ts\'\nimport { jobRoutes } from \'./routes.ts\'\nimport { buildApp } from \'../app.ts\'\nexport class JobService { x = [badRequest, jobRoutes, buildApp] }\n',
    'core/jobs/routes.ts': 'import { JobService } from \'./job-service.ts\'\nexport const jobRoutes = () => new JobService()\n',
    'core/app.ts': 'import { jobRoutes } from \'./jobs/routes.ts\'\nexport const buildApp = () => jobRoutes\n',
    // A circle closed by a type-only import still counts in the kernel.
    'core/accounts/a.ts': 'import type { B } from \'./b.ts\'\nexport interface A { b?: B }\n',
    'core/accounts/b.ts': 'import type { A } from \'./a.ts\'\nexport interface B { a?: A }\n',
    // The kernel imports a plugin.
    'core/agent/guide.ts': 'import tool from \'../../plugins/one/index.ts\'\nexport const guide = tool\n',
    'core/tools/contract.ts': 'export const defineTool = (x: unknown) => x\n',
    // A plugin: its run.ts takes types from its schema module (allowed), imports the contract and the library (allowed),
    // a kernel file that is not the contract, and another plugin's folder (both refused).
    'plugins/one/index.ts': 'import { defineTool } from \'../../core/tools/contract.ts\'\nimport { oneRow } from \'./schema.ts\'\nexport default defineTool({ row: oneRow, run: async () => (await import(\'./run.ts\')).run() })\n',
    'plugins/one/schema.ts': 'export const oneRow = { type: \'object\' }\nexport interface OneRow { a: string }\n',
    'plugins/one/run.ts': 'import type { OneRow } from \'./schema.ts\'\nimport { helper } from \'../lib/helper.ts\'\nimport { badRequest } from \'../../core/errors.ts\'\nimport { two } from \'../two/index.ts\'\nexport const run = (): OneRow[] => [{ a: String([helper, badRequest, two]) }]\n',
    'plugins/two/index.ts': 'import { three } from \'./three.ts\'\nexport const two = 2\nexport const also = three\n',
    // A circle in a plugin is refused, at run time or through types only (run.ts taking its types from the index.ts that loads it).
    'plugins/three/index.ts': 'import { defineTool } from \'../../core/tools/contract.ts\'\nexport interface ThreeRow { a: string }\nexport default defineTool({ run: async () => (await import(\'./run.ts\')).run() })\n',
    'plugins/three/run.ts': 'import type { ThreeRow } from \'./index.ts\'\nexport const run = (): ThreeRow[] => []\n',
    'plugins/two/three.ts': 'import { two } from \'./index.ts\'\nexport const three = two + 1\n',
    'plugins/lib/helper.ts': 'export const helper = 1\n',
  }
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  const run = depcruise(dir, 'core', 'plugins')
  t.not(run.status, 0, 'the run fails')
  const out = run.stdout + run.stderr
  t.match(out, /domain-imports-no-service: core\/tools\/registry\.ts → core\/jobs\/job-service\.ts/)
  t.match(out, /domain-imports-no-http: core\/tools\/registry\.ts → core\/route-defaults\.ts/)
  t.match(out, /service-imports-no-http: core\/jobs\/job-service\.ts → core\/jobs\/routes\.ts/)
  t.match(out, /kernel-imports-no-composition-root: core\/jobs\/job-service\.ts → core\/app\.ts/)
  t.match(out, /no-circular: core\/accounts\/(a|b)\.ts/, 'a type-only circle in the kernel')
  t.match(out, /kernel-imports-no-plugin: core\/agent\/guide\.ts → plugins\/one\/index\.ts/)
  t.match(out, /plugins-import-only-contract-and-lib: plugins\/one\/run\.ts → core\/errors\.ts/)
  t.match(out, /plugins-import-only-contract-and-lib: plugins\/one\/run\.ts → plugins\/two\/index\.ts/)
  t.notMatch(out, /plugins\/one\/run\.ts → plugins\/lib\/helper\.ts/, 'the plugin library is allowed')
  t.notMatch(out, /plugins\/one\/index\.ts → core\/tools\/contract\.ts/, 'the contract is allowed')
  t.match(out, /no-circular: plugins\/two\/(index|three)\.ts/, 'a circle at run time in a plugin')
  t.match(out, /no-circular: plugins\/three\/(index|run)\.ts/, 'a type-only circle in a plugin')
  t.notMatch(out, /no-circular: plugins\/one\//, 'index.ts and run.ts share the schema module, no circle')
})

t.test('no-circular-folders: two kernel folders that import each other fail with the rule\'s name, with no module circle', async t => {
  const dir = tempDir(t)
  const files: Record<string, string> = {
    // core/jobs → core/artifacts → core/jobs, through three modules none of which reaches itself.
    'core/jobs/job-ending.ts': 'import { ArtifactService } from \'../artifacts/artifact-service.ts\'\nexport const ending = ArtifactService\n',
    'core/jobs/schemas.ts': 'export type JobParams = { id: string }\n',
    'core/artifacts/artifact-service.ts': 'export class ArtifactService {}\n',
    // A type-only import counts.
    'core/artifacts/routes.ts': 'import type { JobParams } from \'../jobs/schemas.ts\'\nexport type Params = JobParams\n',
    // One way only: allowed.
    'core/quotas/tiers.ts': 'export const tiers = 1\n',
    'core/accounts/account-service.ts': 'import { tiers } from \'../quotas/tiers.ts\'\nexport const accounts = tiers\n',
  }
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  const run = depcruise(dir, 'core')
  t.not(run.status, 0, 'the run fails')
  const out = run.stdout + run.stderr
  t.match(out, /no-circular-folders: core\/jobs →\s+core\/artifacts →\s+core\/jobs/)
  t.match(out, /no-circular-folders: core\/artifacts →\s+core\/jobs →\s+core\/artifacts/)
  t.notMatch(out, /no-circular:/, 'no module is in a circle')
  t.notMatch(out, /core\/(accounts|quotas) →/, 'a one-way folder dependency is fine')
})
