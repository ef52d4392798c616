// Tool `fb_covers` / agent `socialA_cover_download`: cover images of Facebook
// videos and reels, from their links or from a page's video list (shared run
// code: plugins/lib/media-tools/covers-tool.ts).
import { defineCoversTool, PLATFORMS } from '../lib/media-tools/index.ts'
import { facebookPageListUrl } from '../lib/media/index.ts'

export default defineCoversTool({
  key: 'fb_covers',
  agentName: 'socialA_cover_download',
  title: 'Facebook video and reel cover images',
  platform: PLATFORMS.facebook,
  what: 'a video or a reel, or with page_videos a page\'s video list',
  notes: 'page_videos: true reads each link as a page (its logged-out mobile page) and gives a row per video linked on it, each read with yt-dlp; a page Facebook shows only to a logged-in visitor answers a warning, not rows (give the videos\' links then). Facebook has no animated covers. Example: {"url": "https://www.facebook.com/watch/?v=10153231379946729"}; a page: {"url": "https://www.facebook.com/NASA/videos", "page_videos": true, "limit": 20}.',
  pageVideos: true,
  // yt-dlp cannot list a Facebook page's videos: the page's own HTML does (plugins/lib/media/facebook-page.ts).
  pageList: { listUrl: facebookPageListUrl, parser: { module: new URL('../lib/media/facebook-page.ts', import.meta.url), name: 'facebookPageVideosFromHtml' } },
  examples: [
    { task: 'get the cover image of a Facebook video', args: { url: 'https://www.facebook.com/watch/?v=10153231379946729' } },
    { task: 'thumbnails of all the videos on a Facebook page', args: { url: 'https://www.facebook.com/NASA/videos', page_videos: true, max_results: 20 } },
  ],
  keywords: ['facebook cover', 'facebook thumbnail', 'video thumbnail', 'reel cover', 'cover image', 'cover photo', 'poster', 'preview image', 'fb', 'facebook page videos', 'video list', 'full size'],
  cues: ['thumbnail', 'cover', 'poster', 'preview image', 'picture', 'image'],
  notFor: ['youtube', 'youtu', 'instagram', 'insta', 'ig', 'tiktok', 'tik tok', 'snapchat', 'snap', 'spotlight', 'mp4', 'video file', 'frames', 'screenshot', 'ads'],
})
