// Tool `yt_comp` / agent `videoA_competitor`: 1 to 5 YouTube channels compared
// (subscribers, upload cadence, recent views, engagement), one row each plus
// one ranking row. It reads the channels through `yt` (ctx.tools.run).
import { defineTool } from '../../core/tools/contract.ts'
import { YtCompSettingsSchema } from './settings.ts'
import { CHANNELS_LIST } from './list.ts'
import { ytCompInput, ytCompRow } from './schema.ts'

export default defineTool({
  key: 'yt_comp',
  agentName: 'videoA_competitor',
  title: 'YouTube competitor channel comparison',
  description: 'Compares 1 to 5 YouTube channels side by side. One row per channel: subscribers, total views, video count, upload cadence (days between its last uploads: median and mean, uploads per week), median and mean views of its recent videos, engagement ((likes + comments) / views on its newest videos, where shown) and its top recent videos; then one comparison row ranking the channels on those measures (rank 1 = best overall). Give channel links, @handles or UC… ids. Example: {"channels": ["@mkbhd", "@LinusTechTips"]}; {"channels": ["https://www.youtube.com/@Vsauce", "@veritasium"], "recent_videos": 30}.',
  input: ytCompInput,
  row: ytCompRow,
  // A monitor's row identity and the fields whose changes it reports (core/monitors).
  rowKey: ['type', 'channel_id'],
  watch: ['subscriber_count', 'total_views', 'video_count', 'uploads_per_week', 'rank'],
  examples: [
    { task: 'compare two YouTube channels by subscribers and upload frequency', args: { channels: ['@mkbhd', '@LinusTechTips'], recent_videos: 15 } },
    { task: 'benchmark my YouTube channel against competitors: how often they upload and how many views they get', args: { channels: ['@Vsauce', '@veritasium', '@smartereveryday'], recent_videos: 20 } },
  ],
  keywords: ['youtube competitors', 'competitor analysis', 'competitor channels', 'compare channels', 'channel comparison', 'benchmark', 'upload frequency', 'upload schedule', 'posting frequency', 'cadence', 'how often they upload', 'average views', 'median views', 'engagement rate', 'rank channels', 'versus', 'vs', 'youtuber', 'rival'],
  cues: ['compare', 'competitors', 'versus', 'benchmark', 'rival', 'upload frequency', 'how often'],
  notFor: ['download', 'transcript', 'thumbnail', 'ads', 'instagram', 'tiktok', 'facebook'],
  pollSeconds: 3,
  settings: YtCompSettingsSchema,
  list: CHANNELS_LIST,
  uses: ['yt'],
  run: async (ctx) => (await import('./run.ts')).runYtComp(ctx),
})
