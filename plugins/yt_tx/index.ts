// Tool `yt_tx` / agent `videoA_transcript`: a YouTube video's captions as
// timed text and as .txt/.srt/.vtt files, from the player's caption tracks
// (InnerTube through youtubei.js and the guarded client) and timedtext json3.
import { defineTool } from '../../core/tools/contract.ts'
import { VIDEOS_LIST } from './list.ts'
import { YtTxSettingsSchema } from './settings.ts'
import { ytTxInput, ytTxRow } from './schema.ts'

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
