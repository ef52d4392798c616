// Tool `yt_tx` / agent `videoA_transcript`: a YouTube video's captions as
// timed text and as .txt/.srt/.vtt files, from the player's caption tracks
// (InnerTube through youtubei.js and the guarded client) and timedtext json3.
import { Defaulted, defineTool, LinkOrId, Nullable, OneOrMany, Type } from '../../core/tools/contract.ts'
import { MAX_VIDEOS, VIDEOS_LIST } from './list.ts'
import { YtTxSettingsSchema } from './settings.ts'

const fileRef = Type.Object({ name: Type.String(), url: Type.String({ description: 'Download path on this server (kept as long as the rows).' }), size: Type.Integer() })

export const ytTxRow = Type.Object({
  input_url: Type.String(),
  video_id: Type.String(),
  url: Type.String(),
  title: Nullable(Type.String()),
  has_captions: Type.Boolean({ description: 'false: the video has no caption track that fits (the row says which exist).' }),
  language: Nullable(Type.String({ description: 'The track fetched (or its translation target).' })),
  language_name: Nullable(Type.String()),
  kind: Nullable(Type.Union([Type.Literal('manual'), Type.Literal('auto')], { description: 'manual: the uploader\'s captions; auto: YouTube\'s automatic speech recognition.' })),
  translated_from: Nullable(Type.String({ description: 'Set when YouTube translated the track (translate_to).' })),
  available_languages: Type.Array(Type.Object({ language: Type.String(), name: Nullable(Type.String()), kind: Type.String() })),
  segments: Type.Array(Type.Object({ start_seconds: Type.Number(), end_seconds: Type.Number(), text: Type.String() })),
  text: Nullable(Type.String()),
  files: Type.Array(fileRef, { description: '.txt, .srt and .vtt of the transcript.' }),
  error: Nullable(Type.String()),
})

export const ytTxInput = Type.Object({
  url: OneOrMany(LinkOrId(), { maxItems: MAX_VIDEOS, description: 'A YouTube video link or 11-character id, or a list of them.' }),
  language: Defaulted(Type.String({ pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?$', description: 'Caption language wanted (en, de, pt-BR…): the uploader\'s track first, then the automatic one.' }), 'en'),
  auto_captions: Defaulted(Type.Boolean({ description: 'Fall back to YouTube\'s automatic captions when the uploader gave none in the language.' }), true),
  translate_to: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?$', description: 'Ask YouTube to translate the captions into this language when no track in it exists.' })),
}, { additionalProperties: false })

export default defineTool({
  key: 'yt_tx',
  agentName: 'videoA_transcript',
  title: 'YouTube transcript and captions',
  description: 'Gets the transcript of YouTube videos from their caption tracks: the uploader\'s captions in the language asked, falling back to automatic captions, or a translation by YouTube. One row per video with the timed segments (start and end seconds, text), the full text, the language and kind of track, every language available, and .txt, .srt and .vtt files to download. A video without captions gives a row with has_captions=false. Example: {"url": "https://www.youtube.com/watch?v=dQw4w9WgXcQ"}; {"url": ["dQw4w9WgXcQ", "https://youtu.be/GJLlxj_dtq8"], "language": "de"}; {"url": "GJLlxj_dtq8", "translate_to": "fr"}.',
  input: ytTxInput,
  row: ytTxRow,
  list: VIDEOS_LIST,
  // A monitor's row identity and the fields whose changes it reports (core/monitors).
  rowKey: ['video_id', 'language'],
  watch: ['title', 'has_captions', 'text'],
  examples: [
    { task: 'get the transcript of a YouTube video', args: { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ', language: 'en', auto_captions: true } },
    { task: 'download the subtitles of a youtube video as srt in German', args: { url: 'https://youtu.be/GJLlxj_dtq8', language: 'de', auto_captions: true } },
  ],
  keywords: ['transcript', 'transcription', 'captions', 'closed captions', 'subtitles', 'srt', 'vtt', 'timedtext', 'what is said in the video', 'speech to text', 'auto-generated captions', 'translate subtitles'],
  cues: ['transcript', 'captions', 'subtitles', 'srt', 'vtt', 'what is said', 'spoken', 'timestamps', 'youtube'],
  notFor: ['instagram', 'insta', 'ig', 'reel', 'tiktok', 'facebook', 'fb', 'download', 'mp4', 'thumbnail', 'frames', 'screenshot'],
  pollSeconds: 2,
  settings: YtTxSettingsSchema,
  run: async (ctx) => (await import('./run.ts')).runYtTx(ctx),
})
