// yt_comp's input and row: the one schema of each (the declaration's and the
// run's types come from here; run.ts never imports index.ts, which loads it).
import { Defaulted, LinkOrId, Nullable, NullableFields, OneOrMany, Type } from '../../core/tools/contract.ts'
import { MAX_CHANNELS } from './list.ts'

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
