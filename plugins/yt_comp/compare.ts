// Pure arithmetic of `yt_comp`: one channel's figures from its yt rows, and
// the ranking across channels. No I/O; tested on hand-made rows.

export interface VideoLike { video_id: string | null, title: string | null, url: string, view_count: number | null, like_count: number | null, comment_count: number | null, published_at: string | null, is_live: boolean | null }

export interface ChannelStats {
  videos_analyzed: number
  upload_gap_days_median: number | null
  upload_gap_days_mean: number | null
  uploads_per_week: number | null
  recent_views_median: number | null
  recent_views_mean: number | null
  engagement_rate_median: number | null
  engagement_videos: number
  top_videos: Array<{ video_id: string, title: string | null, url: string, view_count: number | null, published_at: string | null }>
}

const round = (n: number, digits = 2): number => Math.round(n * 10 ** digits) / 10 ** digits

export function median (values: number[]): number | null {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const mean = (values: number[]): number | null => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : null)

/** Days between consecutive uploads, newest first (dates YYYY-MM-DD; undated videos skipped). */
export function uploadGaps (dates: Array<string | null>): number[] {
  const days = dates.filter((d): d is string => typeof d === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(d)).map(d => Date.parse(`${d}T00:00:00Z`) / 86_400_000).sort((a, b) => b - a)
  const gaps: number[] = []
  for (let i = 1; i < days.length; i++) gaps.push(days[i - 1]! - days[i]!)
  return gaps
}

/**
 * A channel's figures from its recent videos (newest first) and, where looked
 * up, those videos' likes and comments (`engaged`): engagement is (likes +
 * comments) / views per video, the median over those that show all three.
 * A live stream running now is left out of the views (its count is still growing).
 */
export function channelStats (videos: VideoLike[], engaged: VideoLike[], topCount: number): ChannelStats {
  const recent = videos.filter(v => v.is_live !== true)
  const views = recent.map(v => v.view_count).filter((n): n is number => typeof n === 'number')
  const gaps = uploadGaps(recent.map(v => v.published_at))
  const gapMean = mean(gaps)
  const rates = engaged
    .filter(v => typeof v.view_count === 'number' && v.view_count > 0 && (typeof v.like_count === 'number' || typeof v.comment_count === 'number'))
    .map(v => ((v.like_count ?? 0) + (v.comment_count ?? 0)) / v.view_count!)
  const rate = median(rates)
  const gapMedian = median(gaps)
  const viewsMedian = median(views)
  const viewsMean = mean(views)
  return {
    videos_analyzed: recent.length,
    upload_gap_days_median: gapMedian === null ? null : round(gapMedian, 1),
    upload_gap_days_mean: gapMean === null ? null : round(gapMean, 1),
    uploads_per_week: gapMean === null ? null : gapMean === 0 ? null : round(7 / gapMean, 2),
    recent_views_median: viewsMedian === null ? null : Math.round(viewsMedian),
    recent_views_mean: viewsMean === null ? null : Math.round(viewsMean),
    engagement_rate_median: rate === null ? null : round(rate, 4),
    engagement_videos: rates.length,
    top_videos: [...recent].filter(v => v.video_id).sort((a, b) => (b.view_count ?? -1) - (a.view_count ?? -1)).slice(0, topCount)
      .map(v => ({ video_id: v.video_id!, title: v.title, url: v.url, view_count: v.view_count, published_at: v.published_at })),
  }
}

export interface Ranked { channel_id: string | null, channel_name: string | null, subscriber_count: number | null, recent_views_median: number | null, uploads_per_week: number | null, engagement_rate_median: number | null }

/** The measures ranked, each higher-is-better; a channel without a figure ranks last on that measure. */
const RANK_MEASURES = ['subscriber_count', 'recent_views_median', 'uploads_per_week', 'engagement_rate_median'] as const

/**
 * Ranks channels on each measure (1 = best, ties share a rank) and overall by
 * the mean of those ranks over the measures at least one channel has (ties:
 * more subscribers first).
 */
export function rankChannels<T extends Ranked> (channels: T[]): Array<T & { rank: number, ranks: Record<string, number | null>, score: number }> {
  const measures = RANK_MEASURES.filter(m => channels.some(c => typeof c[m] === 'number'))
  const scored = channels.map(c => {
    const ranks: Record<string, number | null> = {}
    for (const m of RANK_MEASURES) {
      if (!measures.includes(m)) { ranks[m] = null; continue }
      const value = c[m]
      ranks[m] = typeof value === 'number' ? 1 + channels.filter(o => typeof o[m] === 'number' && (o[m] as number) > value).length : channels.length
    }
    const used = measures.map(m => ranks[m]!)
    return { ...c, ranks, score: used.length ? round(used.reduce((a, b) => a + b, 0) / used.length, 2) : channels.length }
  })
  scored.sort((a, b) => a.score - b.score || (b.subscriber_count ?? -1) - (a.subscriber_count ?? -1))
  return scored.map((c, i) => ({ ...c, rank: i + 1 }))
}
