// Tool `ig_captions` / agent `socialB_reels_captions`: a reel's creator
// caption (text, hashtags, mentions) and its subtitles or automatic captions in
// the asked language as .srt, .vtt and .txt job files plus the text in the row.
import { defineTool } from '../../core/tools/contract.ts'
import { LINKS_LIST, MEDIA_TOOL_CAPABILITY, YtdlpToolSettingsSchema } from '../lib/media-tools/index.ts'
import { igCaptionsInput, igCaptionsRow } from './schema.ts'

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
