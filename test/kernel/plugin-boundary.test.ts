// The boundary between the kernel and the plugins, as the issue's "done when"
// greps it: no file of core/ imports from plugins/ (the plugin library
// included), no tool key or agent tool name appears as a string in core/, and
// plugins reach outside their folder only through the contract and the plugin
// library, never node:dns (ctx.dns is the guarded resolver) nor a Redis client
// (createState's shared state is the one way to state shared across processes).
import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { loadToolsFile } from '../../core/config.ts'
import { ToolRegistry } from '../../core/tools/registry.ts'

const root = resolve('.')

function sourceFiles (dir: string): string[] {
  const out: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) { if (entry.name !== 'node_modules') out.push(...sourceFiles(path)); continue }
    if (/\.(ts|mts|mjs|js)$/.test(entry.name)) out.push(path)
  }
  return out
}

/** Module specifiers a file names: static imports and re-exports, import(), and new URL('…', import.meta.url). */
export function specifiersOf (source: string): string[] {
  const patterns = [
    /\b(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"`]([^'"`]+)['"`]\s*\)/g,
    /\bnew URL\(\s*['"`]([^'"`]+)['"`]\s*,\s*import\.meta\.url\s*\)/g,
  ]
  return patterns.flatMap(pattern => [...source.matchAll(pattern)].map(m => m[1]!))
}

const relativeTo = (file: string, specifier: string) => relative(root, resolve(dirname(file), specifier))
const isRelative = (specifier: string) => specifier.startsWith('./') || specifier.startsWith('../')

t.test('the specifier reader finds every way a module is named', async t => {
  t.same(specifiersOf(`import a from './a.ts'\nimport type { B } from "../b.ts"\nexport { c } from './c.ts'\nimport './d.ts'\nconst e = await import('./e.ts')\nconst f = new URL('./f.ts', import.meta.url)`),
    ['./a.ts', '../b.ts', './c.ts', './d.ts', './e.ts', './f.ts'])
})

t.test('no file of core/ imports a plugin folder or the plugin library', async t => {
  const offenders: string[] = []
  for (const file of sourceFiles('core')) {
    for (const specifier of specifiersOf(readFileSync(file, 'utf8'))) {
      // The loader's folder (registry.ts, a directory ending in '/') is where plugins are found, not a module imported.
      if (specifier.endsWith('/')) continue
      if (isRelative(specifier) && relativeTo(file, specifier).split(sep)[0] === 'plugins') offenders.push(`${file}: ${specifier}`)
    }
  }
  t.same(offenders, [], 'the kernel reaches plugins only through the loader (tools.config.json names them)')
})

t.test('no tool key or agent tool name is a string in core/', async t => {
  const configPath = resolve('tools.config.json')
  const file = loadToolsFile(configPath)
  const registry = await ToolRegistry.load(file, dirname(configPath))
  const names = [...new Set([...file.tools.filter(tool => tool.plugin).map(tool => tool.key), ...registry.listAgentTools().map(agent => agent.name)])]
  t.ok(names.includes('email') && names.includes('website_email_find'), 'the keys and agent names of the enabled tools')
  const offenders: string[] = []
  for (const path of sourceFiles('core')) {
    const source = readFileSync(path, 'utf8')
    for (const name of names) {
      const literal = new RegExp(`['"\`]${name}['"\`]`)
      const agentName = name.includes('_') && new RegExp(`\\b${name}\\b`).test(source)
      if (literal.test(source) || agentName) offenders.push(`${path}: ${name}`)
    }
  }
  t.same(offenders, [], 'the kernel knows tools from their declarations only')
})

const kernelFiles = (extensions: RegExp) => {
  const all = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? all(path) : extensions.test(entry.name) ? [path] : []
  })
  return all('core').filter(path => !relative(root, path).split(sep).join('/').startsWith('core/features/'))
}

t.test('no kernel file names a platform: what a site does is plugin knowledge (plugins/lib)', async t => {
  const PLATFORMS = /\b(youtube|youtu\.be|instagram|tiktok|facebook|snapchat)\b/i
  const offenders = kernelFiles(/\.(ts|mts|mjs|js|md)$/).filter(path => PLATFORMS.test(readFileSync(path, 'utf8')))
  t.same(offenders, [], 'core/ outside its features (code and READMEs) names no platform')
})

/**
 * The media programs' options, as the media library passes and refuses them
 * (every `-option` / `--option` string of plugins/lib/media: its profiles'
 * guards and its argument builders), less a few too generic to be knowledge.
 */
function mediaProgramOptions (): string[] {
  const GENERIC = new Set(['--version', '-version', '-hide_banner', '-c', '-f', '-i', '-o', '-v', '-y', '-an', '-ss', '-to', '-t'])
  const options = new Set<string>()
  for (const file of sourceFiles(join('plugins', 'lib', 'media'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(/['"`](--?[a-z][a-z0-9_-]+)[=:'"`\s]/g)) options.add(m[1]!)
  }
  return [...options].filter(option => !GENERIC.has(option) && option.length > 3)
}

t.test('no kernel file names a media program\'s option: the programs\' profiles (plugins/lib/media) hold them', async t => {
  const options = mediaProgramOptions()
  for (const known of ['--js-runtimes', '--ffmpeg-location', '--ignore-config', '--downloader-args', '-protocol_whitelist', '-format_whitelist', '-filter_script', '--enable-file-urls']) {
    t.ok(options.includes(known), `the library's options include ${known}`)
  }
  const offenders: string[] = []
  for (const path of kernelFiles(/\.(ts|md)$/)) {
    const source = readFileSync(path, 'utf8')
    for (const option of options) {
      if (new RegExp(`(^|[^\\w-])${option.replace(/[-]/g, '\\-')}(?![\\w-])`).test(source)) offenders.push(`${relative(root, path)}: ${option}`)
    }
  }
  t.same(offenders, [], 'core/ outside its features (code and READMEs) names no option of yt-dlp, ffmpeg or ffprobe')
})

/** The dashboard's view kit, which a plugin's dashboard/ folder (its views) may import, and nothing else of the dashboard. */
const VIEW_KIT = join('core', 'features', 'web', 'dashboard', 'client', 'view-kit.ts')
const inDashboardFolder = (file: string) => /^plugins\/(lib\/)?[^/]+\/dashboard\//.test(relative(root, file).split(sep).join('/'))

t.test('a plugin imports only the contract, its own folder and the plugin library; none imports node:dns or a Redis client', async t => {
  const offenders: string[] = []
  for (const file of sourceFiles('plugins')) {
    const folder = relative('plugins', file).split(sep)[0]!
    for (const specifier of specifiersOf(readFileSync(file, 'utf8'))) {
      if (/^(node:)?dns(\/promises)?$/.test(specifier)) { offenders.push(`${file}: ${specifier} (use ctx.dns)`); continue }
      // State shared across processes goes through the kernel's SharedState (createState's kit), which falls back when Redis is away.
      if (/^(ioredis|bullmq|redis)(\/|$)/.test(specifier)) { offenders.push(`${file}: ${specifier} (use the shared state createState gets)`); continue }
      if (!isRelative(specifier)) continue
      const target = relativeTo(file, specifier)
      const [top, second] = target.split(sep)
      const allowed = target === join('core', 'tools', 'contract.ts') ||
        (top === 'plugins' && (second === folder || second === 'lib')) ||
        // The one exception: a tool's dashboard view (browser code, dashboardViews) imports the dashboard's view kit.
        (inDashboardFolder(file) && target === VIEW_KIT)
      if (!allowed) offenders.push(`${file}: ${specifier}`)
    }
  }
  t.same(offenders, [], 'the contract (core/tools/contract.ts), the own folder and plugins/lib only')
})
