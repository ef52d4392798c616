// Tool `yt_thumbs` / agent `videoA_thumbnail_download`: a YouTube video's
// thumbnail at the highest resolution that exists (maxres, then sd, hq, mq,
// default), each checked with HEAD on the image host.
import { defineTool } from '../../core/tools/contract.ts'
import { VIDEOS_LIST } from './list.ts'
import { YtThumbsSettingsSchema } from './settings.ts'
import { ytThumbsInput, ytThumbsRow } from './schema.ts'

export { MAX_VIDEOS } from './list.ts'

export default defineTool({
  key: 'yt_thumbs',
  agentName: 'videoA_thumbnail_download',
  title: 'YouTube thumbnail download',
  description: 'Finds a YouTube video\'s thumbnail at the highest resolution that exists: maxres (1280×720 or larger), then sd (640×480), hq (480×360), mq (320×180), default (120×90), each checked on i.ytimg.com; YouTube\'s grey 120×90 "no thumbnail" placeholder counts as missing. One row per video: video id, the image URL, its quality, real width and height, size in bytes, and what each size answered; with store_image the image is also kept as a file on this server. Takes any YouTube link (watch, youtu.be, shorts, embed, live, m.youtube.com) or a bare 11-character id, or a list of them. Example: {"url": "https://youtu.be/dQw4w9WgXcQ"}; {"url": ["dQw4w9WgXcQ", "https://www.youtube.com/shorts/abcdefghijk"], "image_format": "webp"}.',
  input: ytThumbsInput,
  row: ytThumbsRow,
  // A monitor's row identity and the fields whose changes it reports (core/monitors).
  rowKey: ['video_id', 'quality'],
  watch: ['found', 'thumbnail_url', 'size_bytes'],
  examples: [
    { task: 'get the highest resolution thumbnail of a YouTube video', args: { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ', image_format: 'jpg', store_image: false } },
    { task: 'download the cover images of several YouTube videos as webp', args: { url: ['https://youtu.be/dQw4w9WgXcQ', 'https://www.youtube.com/shorts/abcdefghijk'], image_format: 'webp', store_image: true } },
  ],
  keywords: ['youtube thumbnail', 'thumbnail', 'thumbnail image', 'video thumbnail', 'maxresdefault', 'hqdefault', 'i.ytimg.com', 'preview image', 'poster image', 'cover image', 'youtube cover', 'hd thumbnail', 'full size thumbnail', 'youtube shorts', 'youtu.be'],
  cues: ['thumbnail', 'cover', 'poster', 'preview image', 'picture', 'image'],
  notFor: ['instagram', 'insta', 'ig', 'tiktok', 'tik tok', 'facebook', 'fb', 'snapchat', 'snap', 'mp4', 'video file', 'transcript', 'subtitles', 'frames', 'screenshot'],
  pollSeconds: 1,
  settings: YtThumbsSettingsSchema,
  list: VIDEOS_LIST,
  // The run module loads with the first job, not at boot.
  run: async (ctx) => (await import('./run.ts')).runYtThumbs(ctx),
})
