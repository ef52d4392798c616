// yt_comp jobs through the kernel: two channels read through `yt` (nested,
// one charge) against the InnerTube stand-in serving the real captures, one
// row per channel and the comparison row; a channel that cannot be read is its
// row's error; a bot wall ends the job blocked.
import t from 'tap'
import { jobHarness, PLUGINS, type ToolEntry } from '../products/_harness.ts'
import { CC_ID, startInnertube, VSAUCE_ID } from '../../fixtures/youtube/innertube-standin.ts'

const tools = (base: string): ToolEntry[] => [
  { key: 'yt', plugin: `${PLUGINS}/yt`, enabled: true, upstream: { youtube: base } },
  { key: 'yt_comp', plugin: `${PLUGINS}/yt_comp`, enabled: true, settings: { engagement_videos: 2 } },
]

t.test('two channels compared: figures per channel, then the ranking, one charge', async t => {
  const yt = await startInnertube(t)
  if (!yt) return
  const h = await jobHarness(t, tools(yt.base))
  const { status, rows } = await h.run('yt_comp', { channels: ['@Vsauce', `https://www.youtube.com/channel/${CC_ID}`, '@nosuchchannel'], recent_videos: 10 }, 150_000)
  t.match(status, { status: 'done', records: 4, refunded: false })
  const [vsauce, cc, missing, comparison] = rows
  t.match(vsauce, {
    type: 'channel', input_url: '@Vsauce', channel_id: VSAUCE_ID, channel_name: 'Vsauce', subscriber_count: 24_600_000,
    total_views: 2_734_155_112, video_count: 636, videos_analyzed: 10, engagement_videos: 2, error: null,
  })
  t.type(vsauce!.upload_gap_days_median, 'number')
  t.type(vsauce!.recent_views_median, 'number')
  t.type(vsauce!.engagement_rate_median, 'number')
  t.equal(vsauce!.top_videos.length, 3)
  t.ok(vsauce!.top_videos[0].view_count >= vsauce!.top_videos[1].view_count, 'top videos by views')
  t.match(cc, { channel_id: CC_ID, channel_name: 'Creative Commons', subscriber_count: 8840, video_count: 258, videos_analyzed: 10, error: null })
  t.match(missing, { input_url: '@nosuchchannel', channel_id: null, rank: null, error: /not found on YouTube/ })
  t.match(comparison, { type: 'comparison', input_url: null })
  t.same(comparison!.ranking.map((r: any) => [r.rank, r.channel_id]), [[1, VSAUCE_ID], [2, CC_ID]])
  t.equal(vsauce!.rank, 1)
  t.equal(cc!.rank, 2)
  t.equal((await h.usage()).calls_today, 1, 'the nested yt runs are not charged')
})
