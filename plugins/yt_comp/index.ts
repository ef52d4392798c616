// Tool `yt_comp` / agent `videoA_competitor`: 1 to 5 YouTube channels compared
// (subscribers, upload cadence, recent views, engagement), one row each plus
// one ranking row. It reads the channels through `yt` (ctx.tools.run).
import { Defaulted, defineTool, LinkOrId, Nullable, NullableFields, OneOrMany, Type } from '../../core/tools/contract.ts'
import { YtCompSettingsSchema } from './settings.ts'
import { CHANNELS_LIST, MAX_CHANNELS } from './list.ts'

const topVideo = Type.Object({ video_id: Type.String(), title: Nullable(Type.String()), url: Type.String(), view_count: Nullable(Type.Integer()), published_at: Nullable(Type.String()) })
const rankEntry = Type.Object({
  rank: Type.Integer(), score: Type.Number({ description: 'Mean of the measure ranks (lower is better).' }),
  channel_id: Nullable(Type.String()), channel_name: Nullable(Type.String()),
  subscriber_count: Nullable(Type.Integer()), recent_views_median: Nullable(Type.Integer()), uploads_per_week: Nullable(Type.Number()), engagement_rate_median: Nullable(Type.Number()),
  ranks: Type.Record(Type.String(), Nullable(Type.Integer()), { description: 'Rank on each measure (1 = best; null: no channel shows it).' }),
})

export const ytCompRow = Type.Object({
  type: Type.Union([Type.Literal('channel'), Type.Literal('comparison')], { description: 'channel: one channel\'s figures; comparison: the last row, the channels ranked.' }),
  input_url: Nullable(Type.String({ description: 'The channel as given (null on the comparison row).' })),
  ...NullableFields(Type.String(), 'channel_id', 'channel_name', 'channel_url'),
  subscriber_count: Nullable(Type.Integer({ description: 'As YouTube rounds it.' })),
  ...NullableFields(Type.Integer(), 'total_views', 'video_count'),
  videos_analyzed: Nullable(Type.Integer({ description: 'Recent uploads the figures are computed on (live streams running now left out).' })),
  upload_gap_days_median: Nullable(Type.Number({ description: 'Days between consecutive recent uploads, median (from YouTube\'s "3 days ago" wording: to the day within a week, coarser after).' })),
  upload_gap_days_mean: Nullable(Type.Number()),
  uploads_per_week: Nullable(Type.Number({ description: '7 / the mean gap.' })),
  ...NullableFields(Type.Integer(), 'recent_views_median', 'recent_views_mean'),
  engagement_rate_median: Nullable(Type.Number({ description: '(likes + comments) / views, median over the newest videos that show them.' })),
  engagement_videos: Nullable(Type.Integer({ description: 'Videos the engagement is computed on.' })),
  top_videos: Type.Array(topVideo, { description: 'Most viewed of the recent uploads.' }),
  rank: Nullable(Type.Integer({ description: 'Overall rank among the channels compared (1 = best).' })),
  ranking: Type.Array(rankEntry, { description: 'Comparison row only: every channel, best first.' }),
  error: Nullable(Type.String({ description: 'Why this channel could not be read.' })),
})

export const ytCompInput = Type.Object({
  channels: OneOrMany(LinkOrId(), { maxItems: MAX_CHANNELS, description: 'One to five channels: /channel/UC… or /@handle links, @handles or UC… ids.' }),
  recent_videos: Defaulted(Type.Integer({ minimum: 2, maximum: 100, description: 'The last N uploads per channel the cadence and view figures are computed on.' }), 15),
}, { additionalProperties: false })

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
