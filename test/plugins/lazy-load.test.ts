// The lazy-load habit (core/tools/README.md): loading a plugin's declaration
// (index.ts, what boot does for every listed tool, enabled or not) loads no npm
// package but typebox and not the plugin's run code; crawlee, the DOM and phone
// libraries, parsers and SDKs load inside `run`, with the first job. Each
// plugin is imported in a fresh process that logs every module it resolves,
// under the test processes' own TypeScript loader (sourceLoaderFlags(); tsx
// under TEST_LOADER=tsx): both resolve the same 1,595 modules, each counted for
// the same declaration.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { loadToolsFile } from '../../core/config.ts'
import { PLUGINS_DIR } from '../../core/tools/registry.ts'
import { tempDir } from '../helpers/build.ts'
import { sourceLoaderFlags } from '../helpers/source-loader.ts'

/** npm packages a declaration may load: the schema library the contract re-exports. */
const DECLARATION_PACKAGES = new Set(['typebox'])

const REGISTER = fileURLToPath(new URL('../helpers/module-log/register.mjs', import.meta.url))

/**
 * The file modules each declaration loads, in one fresh process that imports
 * them in turn: a module is counted for the first declaration that loads it
 * (a heavy library loaded by two plugins is reported for the first one).
 */
function modulesLoadedBy (indexes: string[], log: string): Map<string, string[]> {
  const script = `import { appendFileSync } from 'node:fs'\nfor (const index of ${JSON.stringify(indexes.map(i => pathToFileURL(i).href))}) { appendFileSync(process.env.MODULE_LOG, '#' + index + '\\n'); await import(index) }`
  const res = spawnSync(process.execPath, [...sourceLoaderFlags(), '--import', REGISTER, '--input-type=module', '-e', script], {
    env: { ...process.env, MODULE_LOG: log },
    encoding: 'utf8',
    timeout: 120_000,
  })
  if (res.status !== 0) throw new Error(`importing the declarations failed: ${res.stderr}`)
  const byIndex = new Map<string, string[]>()
  let current: string[] = []
  for (const line of readFileSync(log, 'utf8').split('\n').filter(Boolean)) {
    if (line.startsWith('#')) byIndex.set(fileURLToPath(line.slice(1)), current = [])
    else current.push(fileURLToPath(line))
  }
  return byIndex
}

/** node_modules/<name> or node_modules/@scope/<name> → the package name. */
const packageOf = (path: string) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1]

const configPath = resolve('tools.config.json')
const plugins = loadToolsFile(configPath).tools.filter(e => e.plugin).map(e => ({ key: e.key, folder: join(PLUGINS_DIR, e.plugin!) }))
plugins.push({ key: 'counter (the example plugin)', folder: resolve('test/fixtures/plugins/counter') })

const dir = tempDir(t)
const loadedBy = modulesLoadedBy(plugins.map(p => join(p.folder, 'index.ts')), join(dir, 'modules.log'))

t.test('the log saw each declaration load', async t => {
  for (const { key, folder } of plugins) t.ok(loadedBy.get(join(folder, 'index.ts'))?.some(p => p === join(folder, 'index.ts')), key)
  t.ok([...loadedBy.values()].flat().some(p => p.endsWith(join('core', 'tools', 'contract.ts'))), 'and the contract')
})

for (const { key, folder } of plugins) {
  t.test(`${key}: the declaration loads no heavy library and no run code`, async t => {
    const loaded = loadedBy.get(join(folder, 'index.ts')) ?? []
    const packages = [...new Set(loaded.map(packageOf).filter((p): p is string => p !== undefined))]
    t.same(packages.filter(p => !DECLARATION_PACKAGES.has(p)), [], `packages first loaded with this declaration: ${packages.join(', ') || 'none'}`)
    const runCode = loaded.filter(p => dirname(p) === folder && /^run\.[cm]?ts$/.test(p.slice(folder.length + 1)))
    t.same(runCode, [], 'run.ts loads inside run (await import), with the first job')
  })
}
