// yt_comp's arithmetic on hand-made rows: gaps between uploads, medians and
// means, engagement where shown, the ranking and its ties.
import t from 'tap'
import { channelStats, median, rankChannels, uploadGaps, type VideoLike } from '../../../plugins/yt_comp/compare.ts'

const video = (id: string, views: number | null, date: string | null, extra: Partial<VideoLike> = {}): VideoLike =>
  ({ video_id: id, title: id, url: `https://www.youtube.com/watch?v=${id}`, view_count: views, like_count: null, comment_count: null, published_at: date, is_live: false, ...extra })

t.test('gaps, medians and means', async t => {
  t.same(uploadGaps(['2026-01-20', null, '2026-01-13', '2026-01-10', '2026-01-01']), [7, 3, 9])
  t.equal(median([5, 1, 3]), 3)
  t.equal(median([4, 1, 3, 2]), 2.5)
  t.equal(median([]), null)
  const stats = channelStats([
    video('a', 100, '2026-01-20'), video('live', 5, '2026-01-19', { is_live: true }), video('b', 300, '2026-01-13'),
    video('c', 200, '2026-01-10'), video('d', null, '2026-01-01'),
  ], [
    video('a', 100, '2026-01-20', { like_count: 8, comment_count: 2 }), video('b', 300, '2026-01-13', { like_count: 12, comment_count: null }),
    video('x', 0, null, { like_count: 3 }),
  ], 2)
  t.match(stats, {
    videos_analyzed: 4, upload_gap_days_median: 7, upload_gap_days_mean: 6.3, uploads_per_week: 1.11,
    recent_views_median: 200, recent_views_mean: 200, engagement_rate_median: 0.07, engagement_videos: 2,
  })
  t.same(stats.top_videos.map(v => v.video_id), ['b', 'c'], 'most viewed first; the live stream left out')
  t.match(channelStats([video('only', 10, null)], [], 3), { upload_gap_days_median: null, uploads_per_week: null, engagement_rate_median: null, engagement_videos: 0 })
})

t.test('ranking: mean of the measure ranks, missing figures last, ties by subscribers', async t => {
  const ranked = rankChannels([
    { channel_id: 'A', channel_name: 'A', subscriber_count: 1000, recent_views_median: 50, uploads_per_week: 1, engagement_rate_median: null },
    { channel_id: 'B', channel_name: 'B', subscriber_count: 500, recent_views_median: 80, uploads_per_week: 3, engagement_rate_median: null },
    { channel_id: 'C', channel_name: 'C', subscriber_count: null, recent_views_median: 10, uploads_per_week: null, engagement_rate_median: null },
  ])
  t.same(ranked.map(r => [r.channel_id, r.rank, r.score]), [['B', 1, 1.33], ['A', 2, 1.67], ['C', 3, 3]])
  t.same(ranked[0]!.ranks, { subscriber_count: 2, recent_views_median: 1, uploads_per_week: 1, engagement_rate_median: null })
  const tie = rankChannels([
    { channel_id: 'small', channel_name: null, subscriber_count: 10, recent_views_median: 9, uploads_per_week: null, engagement_rate_median: null },
    { channel_id: 'big', channel_name: null, subscriber_count: 20, recent_views_median: 1, uploads_per_week: null, engagement_rate_median: null },
  ])
  t.same(tie.map(r => r.channel_id), ['big', 'small'], 'equal scores: more subscribers first')
})
