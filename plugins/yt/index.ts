// Tool `yt` / agent `videoA_extract`: metadata and stats of YouTube videos,
// channels (their figures and recent videos) and playlists, over InnerTube
// (youtubei.js, its fetch through the guarded client).
import { defineTool } from '../../core/tools/contract.ts'
import { ENTRIES_LIST } from './list.ts'
import { ytInput, ytRow } from './schema.ts'
import { YtSettingsSchema } from './settings.ts'

const yt = defineTool({
  key: 'yt',
  agentName: 'videoA_extract',
  title: 'YouTube video and channel data',
  description: 'Reads YouTube metadata and stats. A video link or id gives one row: title, channel (name, id, URL), views, likes, comment count when shown, duration in seconds, published date, tags, category, full description, thumbnails, chapters, and live and short flags. A channel link, @handle or UC… id gives a channel row (subscribers, total views, video count, country, joined date, links, description) and then its most recent videos, newest first, up to limit (title, views, duration, when published). A playlist link gives its videos in order. Give one link or a list mixing videos, channels and playlists: one call. Example: {"url": "https://www.youtube.com/watch?v=dQw4w9WgXcQ"}; {"url": "@mkbhd", "limit": 20}; {"url": ["https://youtu.be/dQw4w9WgXcQ", "https://www.youtube.com/playlist?list=PLMC9KNkIncKtPzgY-5rmhvj7fax8fdxoj"]}.',
  input: ytInput,
  row: ytRow,
  list: ENTRIES_LIST,
  // A monitor's row identity and the fields whose changes it reports (core/monitors).
  rowKey: ['type', 'video_id', 'channel_id', 'playlist_id'],
  watch: ['title', 'view_count', 'like_count', 'comment_count', 'subscriber_count', 'total_views', 'video_count'],
  renames: { limit: 'max_results' },
  perRunFields: ['max_results'],
  examples: [
    { task: 'get the views, likes and publish date of a YouTube video', args: { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ', max_results: 30 } },
    { task: 'list the recent videos of a YouTube channel with their view counts', args: { url: 'https://www.youtube.com/@Vsauce', max_results: 30 } },
    { task: 'how many subscribers does a YouTube channel have', args: { url: '@Vsauce', max_results: 5 } },
    { task: 'list every video of a YouTube playlist', args: { url: 'https://www.youtube.com/playlist?list=PLMC9KNkIncKtPzgY-5rmhvj7fax8fdxoj', max_results: 200 } },
  ],
  keywords: ['youtube', 'youtube video', 'youtube channel', 'youtube playlist', 'video metadata', 'video stats', 'view count', 'views', 'likes', 'subscribers', 'subscriber count', 'upload date', 'video tags', 'chapters', 'channel stats', 'recent uploads', 'innertube', 'youtubei', 'youtu.be', 'shorts', 'video details', 'video title', 'video description'],
  cues: ['youtube', 'view count', 'subscribers', 'channel stats', 'video details', 'metadata', 'upload date'],
  notFor: ['download', 'mp4', 'transcript', 'captions', 'subtitles', 'thumbnail', 'compare', 'competitors', 'frames', 'screenshots', 'instagram', 'tiktok', 'facebook'],
  pollSeconds: 2,
  settings: YtSettingsSchema,
  renamedSettings: { video_concurrency: { to: 'concurrency' } },
  // The run module (and youtubei.js) loads with the first job, not at boot.
  run: async (ctx) => (await import('./run.ts')).runYt(ctx),
})
export default yt

// Tools that run this one (ctx.tools.run('yt', …)) get its input and row types from here.
declare module '../../core/tools/contract.ts' {
  interface NestedTools { yt: typeof yt }
}
