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
