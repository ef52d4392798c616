// The dashboard's front-end (client/, TypeScript) bundled by esbuild in memory
// on the first request of /app: no build folder to keep in step with the
// source and no install step; a start that never serves /app never loads
// esbuild. Each file is named by a hash of its content (cached for a year by
// browsers) and kept with its gzip and brotli forms, so a request costs no
// compression (buildAsset of core/web/pages/static-assets.ts, as the public pages' stylesheets).
import { createHash } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { buildAsset, type StaticAsset } from '../pages/static-assets.ts'
import { renderDashboardShell } from './dashboard-shell.ts'

/** The front-end's entry (it imports the rest, CSS included). */
export const DASHBOARD_CLIENT_ENTRY = fileURLToPath(new URL('./client/main.ts', import.meta.url))

export interface DashboardBundle {
  /** The page, 'index.html'. */
  shell: StaticAsset
  /** By file name under /app/assets/ (content-hashed). */
  assets: Map<string, StaticAsset>
}

const hashed = (base: string, ext: string, body: Uint8Array) => `${base}.${createHash('sha256').update(body).digest('hex').slice(0, 12)}.${ext}`

export async function bundleDashboard (): Promise<DashboardBundle> {
  const { build } = await import('esbuild')
  const result = await build({
    entryPoints: { dashboard: DASHBOARD_CLIENT_ENTRY },
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
