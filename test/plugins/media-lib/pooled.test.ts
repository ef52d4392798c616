// The library's stdout-text entry points run in the app's extraction pool (as
// plugins call them through ctx.extract.call), so a worker loads them and the
// rows come back as plain data.
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { readCapture } from '../../extract/captures.ts'

t.test('mediaItemsFromJson and convertSubtitles run in an extraction worker', async t => {
  const info = readCapture(t, 'ytdlp/youtube_video.info.json')
  const json3 = readCapture(t, 'youtube/timedtext_json3_asr_en.json3')
  if (info === null || json3 === null) return
  const app = await build(t)
  const pool = app.services.extraction
  const items = await pool.run({ kind: 'call', module: new URL('../../../plugins/lib/media/info-dict.ts', import.meta.url).href, name: 'mediaItemsFromJson', args: [info, { inputUrl: 'ABC123' }] }) as Array<Record<string, any>>
  t.match(items, [{ id: 'ABC123', input_url: 'ABC123', best: { format_id: '22' } }])
  const files = await pool.run({ kind: 'call', module: new URL('../../../plugins/lib/media/captions.ts', import.meta.url).href, name: 'convertSubtitles', args: [json3, 'json3'] }) as Record<string, any>
  t.match(files, { srt: /^1\n00:00:00,000 --> /, vtt: /^WEBVTT\n/, txt: /^in the comments/ })
  t.ok(files.cues > 1000)
})
