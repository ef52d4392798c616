// Captions: the creator's caption split into hashtags and mentions, and the
// subtitle converters on real files: YouTube's json3 automatic captions
// (captures/youtube) and the English captions yt-dlp wrote as SRT in the
// YouTube info dict (captures/ytdlp), also read as WebVTT (the same real text
// written the WebVTT way at test time: no WebVTT file exists in the captures).
import t from 'tap'
import { readCapture } from '../../extract/captures.ts'
import { convertSubtitles, creatorCaption, cuesToSrt, cuesToText, cuesToVtt, parseJson3, parseSrt, parseSubtitles, parseTimestamp, parseWebVtt } from '../../../plugins/lib/media/index.ts'

t.test('creator caption: hashtags and mentions, in order, once each', async t => {
  const caption = creatorCaption('  Sunset drive 🌇 #BMW #m3 #BMW with @bmw.usa and @Lisa_K. Mail me: me@studio.com · https://site.test/page#top &#39;quoted&#39; #2024 #café #東京  ')
  t.equal(caption.caption?.startsWith('Sunset drive'), true, 'trimmed')
  t.same(caption.hashtags, ['BMW', 'm3', 'café', '東京'], 'no URL fragment, no entity, no number-only tag, no repeat')
  t.same(caption.mentions, ['bmw.usa', 'Lisa_K'], 'no e-mail address, no trailing full stop')
  t.same(creatorCaption(''), { caption: null, hashtags: [], mentions: [] })
  t.same(creatorCaption(null), { caption: null, hashtags: [], mentions: [] })
})

t.test('timestamps of both formats', async t => {
  t.equal(parseTimestamp('00:00:01,120'), 1120)
  t.equal(parseTimestamp('01:02:03.004'), 3_723_004)
  t.equal(parseTimestamp('02:03.5'), 123_500, 'WebVTT without hours')
  t.equal(parseTimestamp('1:2'), null)
})

t.test('YouTube json3 automatic captions → cues → SRT, WebVTT and text', async t => {
  const json3 = readCapture(t, 'youtube/timedtext_json3_asr_en.json3')
  if (json3 === null) return
  const cues = parseJson3(json3)
  t.ok(cues.length > 1000, `${cues.length} cues`)
  t.same(cues.slice(0, 2), [
    { start_ms: 0, end_ms: 3000, text: 'in the comments all right oh good I' },
    { start_ms: 3000, end_ms: 5130, text: 'think we found some comments all right' },
  ], 'the words of each event joined; an overlapping cue ends where the next begins')
  t.ok(cues.every((c, i) => i === 0 || cues[i - 1]!.end_ms <= c.start_ms), 'no two cues overlap')
  t.ok(cues.every(c => c.text.trim() === c.text && c.text !== ''), 'no empty cue (window and line-break events skipped)')
  const srt = cuesToSrt(cues)
  t.match(srt, /^1\n00:00:00,000 --> 00:00:03,000\nin the comments all right oh good I\n\n2\n00:00:03,000 --> 00:00:05,130\n/)
  t.same(parseSrt(srt), cues, 'SRT round trip')
  const vtt = cuesToVtt(cues)
  t.match(vtt, /^WEBVTT\n\n00:00:00\.000 --> 00:00:03\.000\nin the comments/)
  t.same(parseWebVtt(vtt), cues, 'WebVTT round trip')
  const text = cuesToText(cues)
  t.match(text, /^in the comments all right oh good I\nthink we found some comments all right\n/)
  t.same(parseSubtitles(json3, 'json3'), cues)
  t.same(convertSubtitles(json3, 'json3'), { srt, vtt, txt: text, cues: cues.length }, 'the three files ig_captions stores, in one call')
  t.equal(convertSubtitles('x', 'srv3'), null)
  t.equal(parseSubtitles('x', 'ttml'), null, 'a format this library does not read')
})

t.test('yt-dlp\'s SRT of rolling automatic captions, and the same text as WebVTT', async t => {
  const infoText = readCapture(t, 'ytdlp/youtube_video.info.json')
  if (infoText === null) return
  const srt: string = JSON.parse(infoText).requested_subtitles.en.data
  const cues = parseSrt(srt)
  t.ok(cues.length > 150, `${cues.length} cues`)
  t.same(cues[0], { start_ms: 1120, end_ms: 4030, text: 'what\'s up shinas wait wrong Channel when' }, 'a cue starting with an empty line is read')
  t.same(cues[2], { start_ms: 4040, end_ms: 7670, text: 'what\'s up shinas wait wrong Channel when\nI wheelie I rely on my rear brake a lot' })
  // The same real captions written as WebVTT: header, a NOTE block, the numbers as cue ids, dotted times, cue settings, markup.
  const vtt = 'WEBVTT\nKind: captions\nLanguage: en\n\nNOTE written from the SRT above\n\n' +
    srt.replace(/(\d\d:\d\d:\d\d),(\d\d\d)/g, '$1.$2').replace(/ --> (\S+)/g, ' --> $1 align:start position:0%').replace(/wheelie/g, '<c>wheelie</c>')
  t.same(parseWebVtt(vtt), cues, 'WebVTT reads to the same cues')
  const text = cuesToText(cues)
  t.match(text, /^what's up shinas wait wrong Channel when\nI wheelie I rely on my rear brake a lot\nwhich is why I want to challenge myself\n/, 'rolling repeats written once')
  t.notMatch(text, /(^|\n)(.+)\n\2\n/, 'no line follows itself')
})

t.test('writers escape what would break the formats', async t => {
  const cues = [{ start_ms: 0, end_ms: 1500, text: 'Tom & Jerry <3\n\nfast --> faster' }]
  t.equal(cuesToVtt(cues), 'WEBVTT\n\n00:00:00.000 --> 00:00:01.500\nTom &amp; Jerry &lt;3\nfast -&gt; faster\n')
  t.same(parseWebVtt(cuesToVtt(cues)), [{ start_ms: 0, end_ms: 1500, text: 'Tom & Jerry <3\nfast -> faster' }])
  t.equal(cuesToSrt(cues), '1\n00:00:00,000 --> 00:00:01,500\nTom & Jerry <3\nfast -> faster\n')
  t.equal(cuesToText([]), '')
})
