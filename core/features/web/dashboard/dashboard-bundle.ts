// The dashboard's front-end (client/, TypeScript) bundled by esbuild in memory
// on the first request of /app: no build folder to keep in step with the
// source and no install step; a start that never serves /app never loads
// esbuild. Each file is named by a hash of its content (cached for a year by
// browsers) and kept with its gzip and brotli forms, so a request costs no
// compression (buildAsset of core/web/pages/static-assets.ts, as the public pages' stylesheets).
//
// The enabled tools' views (their declarations' `dashboardViews`) are bundled
// in: the entry is generated, importing client/main.ts and each view module,
// so the dashboard names no tool and a disabled tool's view is not sent.
import { createHash } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import type { DashboardView, ToolDeclaration } from '../../../tools/contract.ts'
import { buildAsset, type StaticAsset } from '../pages/static-assets.ts'
import { renderDashboardShell } from './dashboard-shell.ts'

/** The front-end's main module (it imports the rest, CSS included; startDashboard starts it). */
export const DASHBOARD_CLIENT_ENTRY = fileURLToPath(new URL('./client/main.ts', import.meta.url))

/** The dashboard's own views: a tool's view may not take their names. */
const OWN_VIEWS = ['account', 'playground', 'jobs', 'tokens', 'results']

/**
 * The tools' views in the enabled tools' order. A view several tools declare
 * with the same name and module (the media tools' one) is drawn once; the same
 * name with another module, or a name the dashboard's own views use, is a
 * plugin bug and stops the boot naming the tools.
 */
export function toolViews (tools: Iterable<{ declaration: Pick<ToolDeclaration, 'key' | 'dashboardViews'> }>): DashboardView[] {
  const views = new Map<string, { view: DashboardView, key: string }>()
  for (const { declaration } of tools) {
    for (const view of declaration.dashboardViews ?? []) {
      if (!/^[a-z][a-z0-9-]*$/.test(view.name) || OWN_VIEWS.includes(view.name)) {
        throw new Error(`the "${declaration.key}" tool's dashboard view "${view.name}" needs a name of lowercase letters, digits and '-' that is not one of the dashboard's own (${OWN_VIEWS.join(', ')})`)
      }
      const seen = views.get(view.name)
      if (seen === undefined) views.set(view.name, { view, key: declaration.key })
      else if (seen.view.module.href !== view.module.href) {
        throw new Error(`the "${declaration.key}" and "${seen.key}" tools declare the dashboard view "${view.name}" with different modules`)
      }
    }
  }
  return [...views.values()].map(v => v.view)
}

/** The bundle's entry: the main module started with the tools' views. */
function entrySource (views: DashboardView[]): string {
  const imports = views.map((v, i) => `import view${i} from ${JSON.stringify(fileURLToPath(v.module))}`)
  const list = views.map((v, i) => `{ name: ${JSON.stringify(v.name)}, title: ${JSON.stringify(v.title)}, view: view${i} }`)
  return [`import { startDashboard } from ${JSON.stringify(DASHBOARD_CLIENT_ENTRY)}`, ...imports, `startDashboard([${list.join(', ')}])`, ''].join('\n')
}

export interface DashboardBundle {
  /** The page, 'index.html'. */
  shell: StaticAsset
  /** By file name under /app/assets/ (content-hashed). */
  assets: Map<string, StaticAsset>
}

const hashed = (base: string, ext: string, body: Uint8Array) => `${base}.${createHash('sha256').update(body).digest('hex').slice(0, 12)}.${ext}`

export async function bundleDashboard (views: DashboardView[]): Promise<DashboardBundle> {
  const { build } = await import('esbuild')
  const result = await build({
    stdin: { contents: entrySource(views), resolveDir: fileURLToPath(new URL('./client/', import.meta.url)), sourcefile: 'dashboard-entry.ts', loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022', 'chrome109', 'firefox115', 'safari16'],
    write: false,
    outdir: '/',
    legalComments: 'none',
    logLevel: 'silent',
    charset: 'utf8',
  })
  const script = result.outputFiles.find(f => f.path.endsWith('.js'))
  const style = result.outputFiles.find(f => f.path.endsWith('.css'))
  if (!script || !style) throw new Error('the dashboard bundle lacks its script or its style sheet')
  const scriptFile = buildAsset(hashed('dashboard', 'js', script.contents), 'text/javascript; charset=utf-8', script.contents)
  const styleFile = buildAsset(hashed('dashboard', 'css', style.contents), 'text/css; charset=utf-8', style.contents)
  const shell = buildAsset('index.html', 'text/html; charset=utf-8', renderDashboardShell({ script: `/app/assets/${scriptFile.name}`, style: `/app/assets/${styleFile.name}` }))
  return { shell, assets: new Map([[scriptFile.name, scriptFile], [styleFile.name, styleFile]]) }
}
