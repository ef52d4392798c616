// Runs `yt_comp`: each channel through `yt` (its channel row and its last N
// uploads, continuations followed there), then the newest few videos through
// `yt` again for likes and comments, then the figures (compare.ts) and the
// ranking. Nested runs are part of this job: one charge.
import { eachItem, InputError, listItems, UpstreamError, type NestedRow, type RunInput, type Static, type ToolContext } from '../../core/tools/contract.ts'
import { channelStats, rankChannels, type VideoLike } from './compare.ts'
import type { ytCompInput, ytCompRow } from './schema.ts'
import type { YtCompSettings } from './settings.ts'
import { CHANNELS_LIST } from './list.ts'

type Row = Static<typeof ytCompRow>
type Ctx = ToolContext<RunInput<typeof ytCompInput>, Row, YtCompSettings>
/** A `yt` row: its declaration's row type (NestedTools), checked against yt's row schema by the kernel. */
type YtRow = NestedRow<'yt'>

const EMPTY: Omit<Row, 'type' | 'input_url'> = {
  channel_id: null, channel_name: null, channel_url: null, subscriber_count: null, total_views: null, video_count: null,
  videos_analyzed: null, upload_gap_days_median: null, upload_gap_days_mean: null, uploads_per_week: null,
  recent_views_median: null, recent_views_mean: null, engagement_rate_median: null, engagement_videos: null,
  top_videos: [], rank: null, ranking: [], error: null,
}

export async function runYtComp (ctx: Ctx): Promise<void> {
  const given = listItems(ctx, CHANNELS_LIST)
  if (given.length === 0) throw new InputError('No channel to compare: give one to five channel links, @handles or UC… ids.')
  const rows: Row[] = []
  // Each channel's row waits for the ranking, pushed with the comparison row after the last.
  await eachItem(ctx, CHANNELS_LIST, given, async input => {
    rows.push(await readChannel(ctx, input))
    return []
  }, { stage: (index, total) => `Reading channel ${index + 1} of ${total}` })
  const read = rows.filter(r => r.error === null)
  if (read.length === 0) throw new UpstreamError(`no channel could be read: ${rows.map(r => r.error).join('; ')}`)
  const ranked = rankChannels(read)
  // Inputs are unique (listItems), so the input names the row.
  const rankOf = new Map(ranked.map(r => [r.input_url, r.rank]))
  for (const row of read) row.rank = rankOf.get(row.input_url) ?? null
  const comparison: Row = {
    ...EMPTY,
    type: 'comparison',
    input_url: null,
    ranking: ranked.map(r => ({
      rank: r.rank, score: r.score, channel_id: r.channel_id, channel_name: r.channel_name, subscriber_count: r.subscriber_count,
      recent_views_median: r.recent_views_median, uploads_per_week: r.uploads_per_week, engagement_rate_median: r.engagement_rate_median, ranks: r.ranks,
    })),
  }
  await ctx.push([...rows, comparison])
}

async function readChannel (ctx: Ctx, input: string): Promise<Row> {
  const base: Row = { ...EMPTY, type: 'channel', input_url: input }
  let found: YtRow[]
  try {
    found = await ctx.tools.run('yt', { url: input, max_results: ctx.input.recent_videos }, { maxRows: ctx.input.recent_videos + 1 })
  } catch (error) {
    // One channel the source refuses or that fails: that row's error; a blocked or misconfigured run ends the job.
    if (error instanceof UpstreamError && !error.blocked) return { ...base, error: error.message.replace(/^YouTube failed for the entry: /, '') }
    if (error instanceof InputError) return { ...base, error: error.message }
    throw error
  }
  const channel = found.find(r => r.type === 'channel')
  if (!channel) return { ...base, error: 'not a YouTube channel (give a channel link, @handle or UC… id)' }
  if (channel.error) return { ...base, error: channel.error }
  const videos = found.filter(r => r.type === 'video' && r.video_id)
  let engaged: YtRow[] = []
  const newest = videos.filter(v => v.is_live !== true).slice(0, ctx.settings.engagement_videos).map(v => v.video_id!)
  if (newest.length) {
    ctx.stage(`Reading likes and comments of ${channel.channel_name ?? input}'s newest videos`)
    try {
      engaged = await ctx.tools.run('yt', { url: newest }, { maxRows: newest.length })
    } catch (error) {
      if (!(error instanceof UpstreamError) || error.blocked) throw error
      ctx.warn(`Engagement of ${channel.channel_name ?? input} could not be read: ${error.message}`)
    }
  }
  // A video looked up itself has its exact publish date: prefer it to the list's estimate.
  const exact = new Map(engaged.filter(v => v.video_id && v.published_at).map(v => [v.video_id!, v.published_at]))
  const recent: VideoLike[] = videos.map(v => ({ ...v, published_at: exact.get(v.video_id!) ?? v.published_at }))
  return {
    ...base,
    channel_id: channel.channel_id,
    channel_name: channel.channel_name,
    channel_url: channel.channel_url,
    subscriber_count: channel.subscriber_count,
    total_views: channel.total_views,
    video_count: channel.video_count,
    ...channelStats(recent, engaged.filter(v => v.error === null), ctx.settings.top_videos),
  }
}
