// Benchmark (issue 13): video_frames through a job against the same ffmpeg
// command run bare, in one run. A 60 s 640×360 clip is made with ffmpeg and
// served from 127.0.0.1; the job cuts a JPEG every 0.5 s (120 frames) through
// the kernel (ctx.exec, the egress proxy, the frames stored as job files, one
// row each); the bare run is videoFramesCommands' same command spawned directly
// (no proxy, no job, no storage). Rounds alternate; medians compared.
// Run: node --import tsx scripts/bench/frames.ts   (BENCH_ROUNDS, default 3)
// Goal: frames/s through a job at least 0.9 × bare. Exits non-zero only on errors.
import { execFile, execFileSync } from 'node:child_process'
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs'
import { createServer } from 'node:http'
import { once } from 'node:events'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { videoFramesCommands } from '../../plugins/lib/media/index.ts'
import { goal, median, printTable, proAccount, ratioText, REPO, runJobToDone, runMain, startBenchApp } from './harness.ts'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const EVERY = 0.5
const FRAMES = 120

async function main (): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-frames-'))
  const clip = join(dir, 'clip.mp4')
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=60:size=640x360:rate=25', '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-movflags', '+faststart', '-y', clip])
  const size = statSync(clip).size
  const server = createServer((req, res) => {
    if (req.url !== '/clip.mp4') { res.statusCode = 404; res.end(); return }
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(size) })
    createReadStream(clip).pipe(res)
  }).listen(0, '127.0.0.1')
  await once(server, 'listening')
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/clip.mp4`
  const bench = await startBenchApp([{ key: 'video_frames', plugin: join(REPO, 'plugins/video_frames'), enabled: true }])
  try {
    const key = await proAccount(bench.app)
    const params = { url, every_seconds: EVERY, max_frames: FRAMES, format: 'jpeg' }
    const viaJob: number[] = []
    const bare: number[] = []
    const runBare = async () => {
      const out = mkdtempSync(join(dir, 'bare-'))
      const [command] = videoFramesCommands({ input: url, outputDir: out, maxFrames: FRAMES, format: 'jpeg' }, { mode: 'interval', everySeconds: EVERY })
      const t0 = performance.now()
      await promisify(execFile)('ffmpeg', command!.args, { maxBuffer: 64 * 1024 * 1024 })
      const ms = performance.now() - t0
      rmSync(out, { recursive: true, force: true })
      return ms
    }
    const runJob = async () => {
      const { ms, status } = await runJobToDone(bench, key, 'video_frames', params)
      if (status.records !== FRAMES) throw new Error(`the job gave ${status.records} frames, not ${FRAMES}`)
      return ms
    }
    await runBare(); await runJob() // warm-up: the page cache, the extraction pool, the egress proxy
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) { bare.push(await runBare()); viaJob.push(await runJob()) } else { viaJob.push(await runJob()); bare.push(await runBare()) }
    }
    const rate = (ms: number) => FRAMES / (ms / 1000)
    const ratio = rate(median(viaJob)) / rate(median(bare))
    printTable(`video_frames: ${FRAMES} JPEG frames (every ${EVERY} s) of a 60 s 640×360 H.264 clip over local HTTP, ${ROUNDS} rounds`, [
      ['path', 'median ms', 'frames/s', 'rounds (ms)'],
      ['bare ffmpeg (same command)', median(bare).toFixed(0), rate(median(bare)).toFixed(1), bare.map(x => x.toFixed(0)).join(' ')],
      ['through a job (exec, proxy, artifacts, rows)', median(viaJob).toFixed(0), rate(median(viaJob)).toFixed(1), viaJob.map(x => x.toFixed(0)).join(' ')],
    ])
    goal(`job/bare frames per second at least 0.9 (${ratioText(ratio)})`, ratio >= 0.9)
  } finally {
    await bench.close()
    server.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

runMain(main)
