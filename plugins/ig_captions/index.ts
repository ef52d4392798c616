// Tool `ig_captions` / agent `socialB_reels_captions`: a reel's creator
// caption (text, hashtags, mentions) and its subtitles or automatic captions in
// the asked language as .srt, .vtt and .txt job files plus the text in the row.
import { Defaulted, defineTool, Nullable, NullableFields, Type } from '../../core/tools/contract.ts'
import { CreatorCaption } from '../lib/media/index.ts'
import { LINKS_LIST, MEDIA_TOOL_CAPABILITY, PLATFORMS, platformUrlInput, YtdlpToolSettingsSchema } from '../lib/media-tools/index.ts'

export const MAX_REELS = 50

export const CaptionFile = Type.Object({
  format: Type.Union([Type.Literal('srt'), Type.Literal('vtt'), Type.Literal('txt')]),
  id: Type.String(),
  name: Type.String(),
  url: Type.String({ description: 'The file on this server (a job artifact, kept as long as the rows).' }),
  size: Type.Integer(),
})

export const igCaptionsRow = Type.Object({
    input_url: Type.String({ description: 'The link as given.' }),
    ...NullableFields(Type.String(), 'id', 'url', 'author'),
    ...CreatorCaption.properties,
    subtitle_language: Nullable(Type.String({ description: 'The track found for the asked language (a regional variant counts), null when none was offered.' })),
    subtitle_automatic: Nullable(Type.Boolean({ description: 'The track is an automatic (speech-recognised) caption, not the uploader\'s.' })),
    subtitle_text: Nullable(Type.String({ description: 'The subtitles as plain text, one line per caption line.' })),
    subtitle_cues: Type.Integer({ description: 'Timed cues in the track (0 without one).' }),
    languages_offered: Type.Array(Type.String(), { description: 'Every subtitle and automatic-caption language the item offers.' }),
    files: Type.Array(CaptionFile, { description: 'The subtitles as .srt, .vtt and .txt files (empty without a track).' }),
})

export const igCaptionsInput = Type.Object({
  url: platformUrlInput(PLATFORMS.instagram, { maxItems: MAX_REELS, what: 'a reel or a video post' }),
  language: Defaulted(Type.String({ minLength: 2, maxLength: 20, pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$', description: 'Subtitle language (ISO 639 code, e.g. en, es, pt-BR); a regional variant of it counts.' }), 'en'),
}, { additionalProperties: false })

export default defineTool({
  key: 'ig_captions',
  agentName: 'socialB_reels_captions',
  title: 'Instagram reel captions and subtitles',
  description: 'Reads an Instagram reel with yt-dlp and returns the creator\'s caption with its hashtags and mentions, and the subtitles or automatic captions in the asked language (default en): as text in the row and as timestamped .srt, .vtt and .txt files (download URLs in files). A reel without subtitles in that language still gives the caption, with a warning and the languages it does offer. Takes one link or a list. Most reels need the operator\'s logged-in session (cookies file), else the job ends blocked and refunded. Example: {"url": "https://www.instagram.com/reel/C1a2b3c4d5e/", "language": "en"}.',
  input: igCaptionsInput,
  row: igCaptionsRow,
  // A monitor's row identity and the fields whose changes it reports (core/monitors).
  rowKey: ['id'],
  watch: ['caption', 'subtitle_text'],
  examples: [
    { task: 'get the caption, hashtags and subtitles of an Instagram reel', args: { url: 'https://www.instagram.com/reel/C1a2b3c4d5e/', language: 'en' } },
    { task: 'download the Spanish subtitles of several reels as srt files', args: { url: ['https://www.instagram.com/reel/C1a2b3c4d5e/', 'https://www.instagram.com/reel/C9z8y7x6w5v/'], language: 'es' } },
  ],
  keywords: ['instagram captions', 'reel captions', 'reel subtitles', 'subtitles', 'srt', 'vtt', 'transcript', 'closed captions', 'hashtags', 'mentions', 'caption text', 'insta', 'ig', 'reels', 'what the reel says'],
  cues: ['captions', 'subtitles', 'srt', 'vtt', 'transcript', 'hashtags', 'what is said'],
  notFor: ['youtube', 'youtu', 'tiktok', 'tik tok', 'facebook', 'fb', 'snapchat', 'snap', 'spotlight', 'thumbnail', 'cover', 'poster', 'preview image', 'mp4', 'video file'],
  settings: YtdlpToolSettingsSchema,
  ...MEDIA_TOOL_CAPABILITY,
  list: LINKS_LIST,
  run: async (ctx) => (await import('./run.ts')).runIgCaptions(ctx),
})
