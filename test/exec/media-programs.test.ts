// The real programs under the guard: ffmpeg makes a small test video, yt-dlp's
// generic extractor reads a local page that embeds it, ffprobe reads it over
// http and https: all through the egress proxy, which is the only route (the
// fixture's host name resolves nowhere but in the proxy's injected resolver).
import t from 'tap'
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { once } from 'node:events'
import { PassThrough } from 'node:stream'
import pino from 'pino'
import { BlockedTargetError, UpstreamError } from '../../core/tools/contract.ts'
import { ytdlpFailure } from '../../plugins/lib/media/index.ts'
import { tempDir } from '../helpers/build.ts'
import { eventually, execService, hasProgram } from './_exec.ts'

const missing = ['ffmpeg', 'ffprobe', 'yt-dlp'].filter(p => !hasProgram(p))
if (missing.length > 0) {
  t.test('the media programs', { skip: `needs ${missing.join(', ')} (.ci/run installs them)` }, async () => {})
} else {
  const log = pino({ level: 'silent' })
  const dir = tempDir(t)
  const HOST = 'media.test'

  // The clip: 2 s of ffmpeg's test pattern (made directly: the runner opens no lavfi input).
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=2:size=160x120:rate=10', '-c:v', 'mpeg4', '-pix_fmt', 'yuv420p', '-f', 'mp4', join(dir, 'clip.mp4')])
  const clip = readFileSync(join(dir, 'clip.mp4'))
  // The runs below may open local files of `dir` only, as a job its own folder.
  const scope = { localRoots: [dir] }

  const hits: string[] = []
  const hanging: ServerResponse[] = []
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    hits.push(`${req.headers.host} ${req.method} ${req.url}`)
    if (req.url === '/page.html') {
      res.setHeader('content-type', 'text/html')
      res.end(`<!doctype html><html><head><title>Test clip</title><meta property="og:title" content="Test clip"><meta property="og:video" content="/clip.mp4"><meta property="og:video:type" content="video/mp4"></head><body><video src="/clip.mp4" controls></video></body></html>`)
      return
    }
    if (req.url?.startsWith('/hang-')) {
      // A page that never answers: yt-dlp waits on it while the test reads its command line.
      hanging.push(res)
      return
    }
    if (req.url === '/clip.mp4') {
      res.setHeader('content-type', 'video/mp4')
      res.setHeader('accept-ranges', 'none')
      res.end(clip)
      return
    }
    res.statusCode = 404
    res.end()
  }
  const site = createHttpServer(handler).listen(0, '127.0.0.1')
  await once(site, 'listening')
  const port = (site.address() as { port: number }).port
  const inside = createHttpServer(handler).listen(0, '127.0.0.2')
  await once(inside, 'listening')
  const insidePort = (inside.address() as { port: number }).port
  t.teardown(() => { for (const r of hanging) r.destroy(); site.closeAllConnections(); site.close(); inside.closeAllConnections(); inside.close() })

  const allowedTargets = [`127.0.0.1:${port}`]
  const lookup = async (name: string) => (name === HOST ? [{ address: '127.0.0.1', family: 4 }] : [])

  t.test('yt-dlp -J reads the page through the proxy, and only through it', async t => {
    hits.length = 0
    const { exec } = execService(t, { allowedTargets, lookup })
    const runner = exec.forJob(new AbortController().signal, log)
    const result = await runner.run('yt-dlp', ['-J', '--no-download', '--no-playlist', '--', `http://${HOST}:${port}/page.html`], { network: true })
    t.equal(result.exitCode, 0, result.stderr)
    const info = JSON.parse(result.stdout)
    t.match(info, { title: /Test clip|page/ })
    const urls = [info.url, ...(info.formats ?? []).map((f: { url: string }) => f.url), ...((info.entries ?? []).map((e: { url: string }) => e.url))]
    t.ok(urls.some(u => typeof u === 'string' && u.endsWith('/clip.mp4')), 'the embedded video was found')
    t.ok(hits.includes(`${HOST}:${port} GET /page.html`), 'the fixture saw the page request, under the name only the proxy resolves')
  })

  t.test('without network: true, yt-dlp reaches nothing', async t => {
    hits.length = 0
    const { exec } = execService(t, { allowedTargets, lookup })
    const result = await exec.forJob(new AbortController().signal, log).run('yt-dlp', ['-J', '--no-download', '--', `http://${HOST}:${port}/page.html`])
    t.not(result.exitCode, 0)
    t.same(hits, [], 'the fixture saw nothing')
    t.type(ytdlpFailure(result.stderr), UpstreamError)
  })

  t.test('a private target is refused: the run fails with the guard\'s error, nothing reaches it', async t => {
    hits.length = 0
    const { exec } = execService(t, { allowedTargets, lookup })
    const error = await exec.forJob(new AbortController().signal, log).run('yt-dlp', ['-J', '--no-download', '--', `http://127.0.0.2:${insidePort}/page.html`], { network: true }).catch(e => e)
    t.type(error, BlockedTargetError)
    t.match(error.message, /Refused to connect to an IP address: loopback/)
    t.equal(error.refund, false)
    t.same(hits, [], 'the private server saw nothing')
  })

  t.test('ffprobe reads an http:// input through the proxy (http_proxy)', async t => {
    hits.length = 0
    const { exec } = execService(t, { allowedTargets, lookup })
    const result = await exec.forJob(new AbortController().signal, log).run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'json', `http://${HOST}:${port}/clip.mp4`], { network: true })
    t.equal(result.exitCode, 0, result.stderr)
    t.equal(Math.round(Number(JSON.parse(result.stdout).format.duration)), 2)
    t.ok(hits.includes(`${HOST}:${port} GET /clip.mp4`))
  })

  t.test("past the run's network cap the run fails (refunded)", async t => {
    t.ok(clip.length > 4096, `the clip (${clip.length} bytes) is larger than the cap`)
    const { exec } = execService(t, { allowedTargets, lookup })
    const error = await exec.forJob(new AbortController().signal, log).run('ffmpeg', ['-v', 'error', '-i', `http://${HOST}:${port}/clip.mp4`, '-f', 'null', '-'], { network: true, maxNetworkBytes: 4096 }).catch(e => e)
    t.type(error, UpstreamError)
    t.match(error.message, /4096-byte network limit/)
    t.equal(error.refund, true)
  })

  t.test('ffprobe reads an https:// input through a CONNECT tunnel', { skip: hasProgram('openssl') ? false : 'needs openssl for the test certificate' }, async t => {
    const certDir = tempDir(t)
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(certDir, 'key.pem'), '-out', join(certDir, 'cert.pem'), '-days', '1', '-subj', `/CN=${HOST}`], { stdio: 'ignore' })
    const secure = createHttpsServer({ key: readFileSync(join(certDir, 'key.pem')), cert: readFileSync(join(certDir, 'cert.pem')) }, handler).listen(0, '127.0.0.1')
    await once(secure, 'listening')
    t.teardown(() => { secure.closeAllConnections(); secure.close() })
    const securePort = (secure.address() as { port: number }).port
    hits.length = 0
    const { exec } = execService(t, { allowedTargets: [`127.0.0.1:${securePort}`], lookup })
    // ffmpeg does not verify certificates unless told to (-tls_verify 1); the self-signed one passes.
    const result = await exec.forJob(new AbortController().signal, log).run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'json', `https://${HOST}:${securePort}/clip.mp4`], { network: true })
    t.equal(result.exitCode, 0, result.stderr)
    t.equal(Math.round(Number(JSON.parse(result.stdout).format.duration)), 2)
    t.ok(hits.includes(`${HOST}:${securePort} GET /clip.mp4`), 'the https fixture saw it, through the tunnel')
    // The tunnel is ffmpeg's `httpproxy` protocol, which the kernel's whitelist names; the kernel's comes
    // last, so a tool's narrower (or wider) one does not count.
    const probe = (whitelist: string) => exec.forJob(new AbortController().signal, log).run('ffprobe', ['-v', 'error', '-protocol_whitelist', whitelist, '-show_entries', 'format=duration', '-of', 'json', `https://${HOST}:${securePort}/clip.mp4`], { network: true })
    t.equal((await probe('http,https,tcp,tls,crypto')).exitCode, 0, 'the kernel\'s whitelist, with httpproxy, is the one used')
  })

  t.test('ffmpeg streams a frame to the caller (pipe:1)', async t => {
    const { exec } = execService(t)
    const sink = new PassThrough()
    const chunks: Buffer[] = []
    sink.on('data', (c: Buffer) => chunks.push(c))
    const result = await exec.forJob(new AbortController().signal, log, scope).run('ffmpeg', ['-v', 'error', '-i', 'clip.mp4', '-frames:v', '1', '-f', 'image2pipe', '-c:v', 'png', 'pipe:1'], { cwd: dir, stdout: sink })
    t.equal(result.exitCode, 0, result.stderr)
    const png = Buffer.concat(chunks)
    t.same([...png.subarray(1, 4)], [...Buffer.from('PNG')], 'a PNG came out')
    t.equal(png.readUInt32BE(16), 160, 'of the clip\'s width')
    t.equal(png.readUInt32BE(20), 120, 'and height')
  })

  t.test('without network: true, ffmpeg and ffprobe open no URL: not in their arguments, not named by a local file', async t => {
    // Connections, not requests: a refused input must not even open a socket.
    let connections = 0
    const counted = (socket: import('node:net').Socket) => { connections++; socket.destroy() }
    site.on('connection', counted)
    t.teardown(() => { site.off('connection', counted) })
    const { exec } = execService(t, { allowedTargets, lookup })
    const runner = exec.forJob(new AbortController().signal, log, scope)
    const url = `http://127.0.0.1:${port}/clip.mp4`
    // A URL input without network is refused before anything starts (a plugin's bug: no proxy would stop it).
    await t.rejects(runner.run('ffmpeg', ['-v', 'error', '-i', url, '-frames:v', '1', '-f', 'null', '-'], { cwd: dir }), /needs network: true/)
    await t.rejects(runner.run('ffmpeg', ['-v', 'error', '-protocol_whitelist', 'file,http,tcp', '-i', url, '-f', 'null', '-'], { cwd: dir }), /needs network: true/, 'a whitelist in the tool\'s arguments does not widen it')
    await t.rejects(runner.run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'json', url], { cwd: dir }), /needs network: true/, 'ffprobe refused it too')
    // A local playlist (an upload could be one) that names a network segment: not opened as a playlist at all.
    writeFileSync(join(dir, 'list.m3u8'), `#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\n${url}\n#EXT-X-ENDLIST\n`)
    const playlist = await runner.run('ffmpeg', ['-v', 'error', '-i', 'list.m3u8', '-f', 'null', '-'], { cwd: dir })
    t.not(playlist.exitCode, 0, 'the playlist was refused')
    t.match(playlist.stderr, /Format not on whitelist/)
    t.equal(connections, 0, 'the fixture saw no connection at all')
    // Local inputs still work.
    const local = await runner.run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'json', 'clip.mp4'], { cwd: dir })
    t.equal(local.exitCode, 0, local.stderr)
  })

  t.test("the proxy's token is in yt-dlp's environment, never in its command line", async t => {
    hits.length = 0
    const { exec } = execService(t, { allowedTargets, lookup })
    const stop = new AbortController()
    const mark = `hang-${process.pid}-${Date.now()}`
    const running = exec.forJob(stop.signal, log).run('yt-dlp', ['-J', '--no-download', '--', `http://${HOST}:${port}/${mark}.html`], { network: true })
    running.catch(() => {})
    // The page was asked for under the name only the proxy resolves: the run reached it through the proxy.
    t.ok(await eventually(() => hits.includes(`${HOST}:${port} GET /${mark}.html`), 20_000), 'yt-dlp reached the page through the egress proxy')
    const pids = readdirSync('/proc').filter(p => /^\d+$/.test(p)).filter(pid => {
      try { return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(mark) } catch { return false }
    })
    t.ok(pids.length > 0, 'the running yt-dlp was found')
    for (const pid of pids) {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
      t.notOk(argv.some(a => /run:|@127\.0\.0\.1|--proxy/.test(a)), `no proxy credentials in argv: ${argv.join(' ')}`)
      // Readable here because the test runs as the same user; /proc/<pid>/environ is the owner's only.
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')
      const proxy = environ.find(v => v.startsWith('http_proxy='))
      t.match(proxy, /^http_proxy=http:\/\/run:[\w-]+@127\.0\.0\.1:\d+$/, 'the token is in the environment')
      const token = /run:([\w-]+)@/.exec(proxy ?? '')?.[1] ?? 'none'
      t.notOk(argv.some(a => a.includes(token)), 'the token is not in argv')
    }
    stop.abort(new Error('test done'))
    await t.rejects(running, /test done/)
  })
}
