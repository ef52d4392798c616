// The dashboard's front-end (client/, TypeScript) bundled by esbuild in memory
// on the first request of /app: no build folder to keep in step with the
// source and no install step; a start that never serves /app never loads
// esbuild. Each file is named by a hash of its content (cached for a year by
// browsers) and kept with its gzip and brotli forms, so a request costs no
// compression.
import { createHash } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib'
import { renderDashboardShell } from './dashboard-shell.ts'

/** The front-end's entry (it imports the rest, CSS included). */
export const DASHBOARD_CLIENT_ENTRY = fileURLToPath(new URL('./client/main.ts', import.meta.url))

export interface DashboardFile {
  /** The file name under /app/assets/ (content-hashed), or 'index.html' for the shell. */
  name: string
  contentType: string
  identity: Buffer
  gzip: Buffer
  brotli: Buffer
  etag: string
}

export interface DashboardBundle {
  shell: DashboardFile
  /** By name under /app/assets/. */
  assets: Map<string, DashboardFile>
}

function packed (name: string, contentType: string, body: Buffer): DashboardFile {
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 16)
  return {
    name,
    contentType,
    identity: body,
    gzip: gzipSync(body, { level: 9 }),
    brotli: brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length } }),
    etag: `"${hash}"`,
  }
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
  const scriptFile = packed(hashed('dashboard', 'js', script.contents), 'text/javascript; charset=utf-8', Buffer.from(script.contents))
  const styleFile = packed(hashed('dashboard', 'css', style.contents), 'text/css; charset=utf-8', Buffer.from(style.contents))
  const shell = packed('index.html', 'text/html; charset=utf-8', Buffer.from(renderDashboardShell({ script: `/app/assets/${scriptFile.name}`, style: `/app/assets/${styleFile.name}` })))
  return { shell, assets: new Map([[scriptFile.name, scriptFile], [styleFile.name, styleFile]]) }
}
