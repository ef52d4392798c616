// video_frames' ffmpeg arguments as pure functions, then one real ffmpeg run
// (a 3 s testsrc video at 1 frame/s gives 3 frames of the video's size at 0, 1
// and 2 s; a cut is found by scene change; a frame per timestamp), skipped
// visibly when ffmpeg is not installed.
import t from 'tap'
import { execFile } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { tempDir } from '../../helpers/build.ts'
import { boundedScale, ffmpegInput, frameTimesFromShowinfo, imageSize, MAX_FRAME_PIXELS, videoFramesCommands } from '../../../plugins/lib/media/index.ts'

const run = promisify(execFile)
const ffmpegPresent = await run('ffmpeg', ['-version']).then(() => true, () => false)

t.test('every N seconds: one run, fps=1/N, capped, JPEG', async t => {
  const [cmd, ...more] = videoFramesCommands({ input: '/scratch/in.mp4', outputDir: '/scratch/out/', maxFrames: 50, format: 'jpeg', width: 640 }, { mode: 'interval', everySeconds: 2.5 })
  t.equal(more.length, 0)
  t.equal(cmd!.output, 'frame-%05d.jpg')
  const a = cmd!.args
  t.same(a.slice(a.indexOf('-i'), a.indexOf('-i') + 2), ['-i', 'file:/scratch/in.mp4'], 'a local file behind file: (the runner adds the whitelists)')
  t.equal(a[a.indexOf('-vf') + 1], `fps=1000/2500,${boundedScale(640)},showinfo`)
  t.equal(a[a.indexOf('-frames:v') + 1], '50')
  t.same(a.slice(a.indexOf('-c:v'), a.indexOf('-c:v') + 4), ['-c:v', 'mjpeg', '-q:v', '2'])
  t.equal(a.at(-1), '/scratch/out/frame-%05d.jpg')
  t.ok(a.includes('-nostdin') && a.includes('-an'))
})

t.test('scene change: select gt(scene,T), variable frame rate, PNG', async t => {
  const [cmd] = videoFramesCommands({ input: 'https://cdn.test/v.mp4', outputDir: '/o', maxFrames: 20, format: 'png' }, { mode: 'scene' })
  const a = cmd!.args
  t.equal(a[a.indexOf('-vf') + 1], `select='gt(scene,0.4)',${boundedScale()},showinfo`, 'no width: still bounded')
  t.same(a.slice(a.indexOf('-fps_mode'), a.indexOf('-fps_mode') + 2), ['-fps_mode', 'vfr'])
  t.same(a.slice(a.indexOf('-i'), a.indexOf('-i') + 2), ['-i', 'https://cdn.test/v.mp4'])
  t.equal(a.at(-1), '/o/frame-%05d.png')
  const [custom] = videoFramesCommands({ input: '/v.mp4', outputDir: '/o', maxFrames: 5, format: 'png' }, { mode: 'scene', threshold: 0.25 })
  t.ok(custom!.args.includes(`select='gt(scene,0.25)',${boundedScale()},showinfo`))
})

t.test('given timestamps: one seek per frame, sorted, repeats dropped, cut to the cap', async t => {
  const cmds = videoFramesCommands({ input: '/v.mp4', outputDir: '/o', maxFrames: 3, format: 'jpeg' }, { mode: 'timestamps', timestamps: [12, 1.5, 12, 0, 99] })
  t.same(cmds.map(c => c.at), [0, 1.5, 12])
  t.same(cmds.map(c => c.output), ['frame-00000.jpg', 'frame-00001.jpg', 'frame-00002.jpg'])
  const a = cmds[1]!.args
  t.ok(a.indexOf('-ss') < a.indexOf('-i'), 'seek before the input')
  t.equal(a[a.indexOf('-ss') + 1], '1.5')
  t.equal(a[a.indexOf('-frames:v') + 1], '1')
  t.equal(a[a.indexOf('-vf') + 1], boundedScale(), 'a timestamp frame is bounded too')
})

t.test('inputs and options ffmpeg must not be given', async t => {
  t.throws(() => ffmpegInput('concat:/etc/passwd|/etc/hosts'), RangeError)
  t.throws(() => ffmpegInput('subfile:,start,0,end,1,:/etc/passwd'), RangeError)
  t.same(ffmpegInput('-weird name.mp4').slice(-1), ['file:-weird name.mp4'], 'a leading dash is a file name')
  const base = { input: '/v.mp4', outputDir: '/o', format: 'jpeg' as const }
  t.throws(() => videoFramesCommands({ ...base, maxFrames: 0 }, { mode: 'interval', everySeconds: 1 }), RangeError)
  t.throws(() => videoFramesCommands({ ...base, maxFrames: 5 }, { mode: 'interval', everySeconds: 0 }), RangeError)
  t.throws(() => videoFramesCommands({ ...base, maxFrames: 5 }, { mode: 'scene', threshold: 1.5 }), RangeError)
  t.throws(() => videoFramesCommands({ ...base, maxFrames: 5 }, { mode: 'timestamps', timestamps: [-1] }), RangeError)
  t.throws(() => videoFramesCommands({ ...base, maxFrames: 5, width: 3 }, { mode: 'interval', everySeconds: 1 }), RangeError)
  t.throws(() => videoFramesCommands({ ...base, maxFrames: 5, width: 3841 }, { mode: 'interval', everySeconds: 1 }), /16 to 3840/)
  t.doesNotThrow(() => videoFramesCommands({ ...base, maxFrames: 5, width: 3840 }, { mode: 'interval', everySeconds: 1 }))
})

t.test('frame times from showinfo lines', async t => {
  const stderr = '[Parsed_showinfo_1 @ 0x55d5] config in time_base: 1/1, frame_rate: 1/1\n' +
    '[Parsed_showinfo_1 @ 0x55d5] n:   0 pts:      0 pts_time:0       duration:      1 fmt:yuv420p\n' +
    '[Parsed_showinfo_1 @ 0x55d5] n:   1 pts:      1 pts_time:1.5     duration:      1\n'
  t.same(frameTimesFromShowinfo(stderr), [0, 1.5])
})

t.test('a real ffmpeg run: 3 s at 1 frame/s gives 3 frames of the video\'s size', { skip: ffmpegPresent ? false : 'ffmpeg is not installed' }, async t => {
  const dir = tempDir(t, 'ejs-frames-')
  const video = join(dir, 'in.mp4')
  await run('ffmpeg', ['-hide_banner', '-nostdin', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=3:size=320x240:rate=10', '-pix_fmt', 'yuv420p', video])
  for (const format of ['jpeg', 'png'] as const) {
    const out = join(dir, format)
    await run('mkdir', [out])
    const [cmd] = videoFramesCommands({ input: video, outputDir: out, maxFrames: 10, format }, { mode: 'interval', everySeconds: 1 })
    const { stderr } = await run('ffmpeg', cmd!.args)
    const files = readdirSync(out).sort()
    t.same(files, ['frame-00000', 'frame-00001', 'frame-00002'].map(f => `${f}.${format === 'jpeg' ? 'jpg' : 'png'}`), `${format}: three frames`)
    t.same(frameTimesFromShowinfo(stderr), [0, 1, 2], 'at 0, 1 and 2 s')
    for (const file of files) t.match(imageSize(readFileSync(join(out, file))), { width: 320, height: 240, type: format }, `${file} is 320×240`)
  }
  const capped = join(dir, 'capped')
  await run('mkdir', [capped])
  const [cmd] = videoFramesCommands({ input: video, outputDir: capped, maxFrames: 2, format: 'jpeg', width: 160 }, { mode: 'interval', everySeconds: 1 })
  await run('ffmpeg', cmd!.args)
  const files = readdirSync(capped)
  t.equal(files.length, 2, 'the cap holds')
  t.match(imageSize(readFileSync(join(capped, files[0]!))), { width: 160, height: 120 }, 'scaled')

  // A cut at 2 s (testsrc, then plain red): scene change finds it; given timestamps give one frame each.
  const cut = join(dir, 'cut.mp4')
  await run('ffmpeg', ['-hide_banner', '-nostdin', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=2:size=160x120:rate=10', '-f', 'lavfi', '-i', 'color=c=red:duration=2:size=160x120:rate=10', '-filter_complex', '[0][1]concat=n=2:v=1', '-pix_fmt', 'yuv420p', cut])
  const scene = join(dir, 'scene')
  await run('mkdir', [scene])
  const [sceneCmd] = videoFramesCommands({ input: cut, outputDir: scene, maxFrames: 10, format: 'png' }, { mode: 'scene' })
  const sceneRun = await run('ffmpeg', sceneCmd!.args)
  t.same(frameTimesFromShowinfo(sceneRun.stderr), [2], 'one scene change, at the cut')
  t.same(readdirSync(scene), ['frame-00000.png'])
  const stamps = join(dir, 'stamps')
  await run('mkdir', [stamps])
  for (const c of videoFramesCommands({ input: cut, outputDir: stamps, maxFrames: 10, format: 'jpeg' }, { mode: 'timestamps', timestamps: [3.2, 0.5] })) await run('ffmpeg', c.args)
  t.same(readdirSync(stamps).sort(), ['frame-00000.jpg', 'frame-00001.jpg'], 'a frame per timestamp')
})

t.test('every frame fits 3840×3840 and 3840×2160 pixels, whatever the shape of the video and the width asked', { skip: ffmpegPresent ? false : 'ffmpeg is not installed' }, async t => {
  // [video, width asked, frame]: the width asked, or the video's size, unless that passes the box; then scaled down into it, aspect kept, sides even.
  const cases: Array<[string, number | undefined, string]> = [
    ['64x384', 3840, '640x3840'], // the tall upload of the issue: 3840×23040 asked
    ['64x384', undefined, '64x384'],
    ['1920x1080', 3840, '3840x2160'],
    ['1920x1080', 1280, '1280x720'],
    ['1920x1080', 641, '641x360'], // an odd width asked stays as asked
    ['7680x4320', undefined, '3840x2160'], // a huge source, no width
    ['7680x4320', 3840, '3840x2160'],
    ['4000x4000', undefined, '2880x2880'], // square: the pixel budget binds before the sides
    ['100x10000', undefined, '38x3840'],
    ['321x241', undefined, '321x241'], // within the box: untouched, odd sides too
  ]
  for (const [size, width, expected] of cases) {
    const { stderr } = await run('ffmpeg', ['-hide_banner', '-nostdin', '-f', 'lavfi', '-i', `testsrc=size=${size}:duration=0.1:rate=1`, '-vf', `${boundedScale(width)},showinfo`, '-frames:v', '1', '-f', 'null', '-'])
    const got = / s:(\d+)x(\d+) /.exec(stderr)
    t.equal(got && `${got[1]}x${got[2]}`, expected, `${size} at width ${width ?? 'unset'}`)
    const [w, h] = [Number(got?.[1]), Number(got?.[2])]
    t.ok(w <= 3840 && h <= 3840 && w * h <= MAX_FRAME_PIXELS, `${w}x${h} is within the box`)
  }
})
