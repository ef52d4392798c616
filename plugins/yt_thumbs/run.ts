// Checks each video's thumbnail sizes best first on the image host: HEAD each
// one; a 404 is missing; the first that answers 200 is read just far enough to
// learn its real size (the first bytes of the image), and a 120×90 image where
// a larger size was asked for is YouTube's "no thumbnail" placeholder, so the
// next size is tried. The image is linked and, with store_image, also kept as
// a job file (see README.md).
import { eachItem, InputError, listItems, ToolBlockedError, UpstreamError, type RunInput, type Static, type ToolContext } from '../../core/tools/contract.ts'
import { imageSize, youtubeVideoId, youtubeWatchUrl } from '../lib/media/index.ts'
import { ImageKeeper } from '../lib/media-tools/stored-image.ts'
import type { ytThumbsInput, ytThumbsRow } from './schema.ts'
import { VIDEOS_LIST } from './list.ts'
import type { YtThumbsSettings } from './settings.ts'

/** The image host's names, best first, with the size YouTube makes each at. */
const THUMBNAIL_QUALITIES = [
  { quality: 'maxres', file: 'maxresdefault', width: 1280, height: 720 },
  { quality: 'sd', file: 'sddefault', width: 640, height: 480 },
  { quality: 'hq', file: 'hqdefault', width: 480, height: 360 },
  { quality: 'mq', file: 'mqdefault', width: 320, height: 180 },
  { quality: 'default', file: 'default', width: 120, height: 90 },
] as const

type Row = Static<typeof ytThumbsRow>
type Ctx = ToolContext<RunInput<typeof ytThumbsInput>, Row, YtThumbsSettings>
type Check = Row['checked'][number]

const DEFAULT_IMAGE_HOST = 'https://i.ytimg.com'
// Enough of the file for a JPEG's frame header or a WebP's chunk header.
const SNIFF_BYTES = 64 * 1024
const PLACEHOLDER = { width: 120, height: 90 }

export async function runYtThumbs (ctx: Ctx): Promise<void> {
  const given = listItems(ctx, VIDEOS_LIST)
  const videos = new Map<string, { input: string, id: string }>()
  const rejected: string[] = []
  for (const input of given) {
    const id = youtubeVideoId(input)
    if (id === null) rejected.push(input)
    else videos.set(input, { input, id })
  }
  if (rejected.length) ctx.warn(`Skipped ${rejected.length} entr${rejected.length === 1 ? 'y' : 'ies'} that ${rejected.length === 1 ? 'is' : 'are'} not a YouTube video link or id: ${rejected.slice(0, 5).map(r => JSON.stringify(r.slice(0, 80))).join(', ')}${rejected.length > 5 ? ', …' : ''}`)
  if (videos.size === 0) throw new InputError('No YouTube video link or id to check: give a watch, youtu.be, shorts, embed or live link, or an 11-character video id.')

  const base = (ctx.upstream.urls.ytimg ?? DEFAULT_IMAGE_HOST).replace(/\/+$/, '')
  let failed = 0
  let missing = 0
  const images = new ImageKeeper(ctx, { timeoutMs: ctx.settings.timeout_ms })
  await eachItem(ctx, VIDEOS_LIST, [...videos.keys()], async input => {
    const row = await bestThumbnail(ctx, base, videos.get(input)!)
    if (ctx.input.store_image && row.found && row.thumbnail_url) row.file = await images.keep(row.thumbnail_url, `${row.video_id}-${row.quality}`, `${row.video_id}: the thumbnail`)
    if (row.error !== null) failed++
    else if (!row.found) missing++
    return [row]
  }, { concurrency: ctx.settings.concurrency, stage: (index, total) => `Checking thumbnails: ${index} of ${total} videos` })
  if (failed === videos.size) throw new UpstreamError(`the image host failed for ${videos.size === 1 ? 'the video' : `all ${videos.size} videos`}: see each row's error`)
  if (missing) ctx.warn(`${missing} of ${videos.size} video${videos.size === 1 ? ' has' : 's have'} no thumbnail on the image host (a wrong id, or a removed or private video).`)
}

async function bestThumbnail (ctx: Ctx, base: string, video: { input: string, id: string }): Promise<Row> {
  const ext = ctx.input.image_format
  const row: Row = {
    input_url: video.input, video_id: video.id, video_url: youtubeWatchUrl(video.id), found: false, quality: null,
    thumbnail_url: null, width: null, height: null, content_type: null, size_bytes: null, checked: [], error: null, file: null,
  }
  for (const size of THUMBNAIL_QUALITIES) {
    const url = ext === 'webp' ? `${base}/vi_webp/${video.id}/${size.file}.webp` : `${base}/vi/${video.id}/${size.file}.jpg`
    const check: Check = { quality: size.quality, url, result: 'missing', http_status: null }
    row.checked.push(check)
    try {
      const head = await ctx.http.fetch(url, { method: 'HEAD', timeoutMs: ctx.settings.timeout_ms })
      await head.body?.cancel().catch(() => {})
      check.http_status = head.status
      if (head.status === 404 || head.status === 410) continue
      if (head.status === 403 || head.status === 429) throw new ToolBlockedError(`the image host answered HTTP ${head.status}`)
      if (head.status < 200 || head.status >= 300) {
        check.result = 'error'
        row.error = `the image host answered HTTP ${head.status}`
        return row
      }
      const image = await sniffImage(ctx, url)
      if (image.size && image.size.width === PLACEHOLDER.width && image.size.height === PLACEHOLDER.height && size.quality !== 'default') {
        check.result = 'placeholder'
        continue
      }
      check.result = 'found'
      const length = Number(head.headers.get('content-length'))
      Object.assign(row, {
        found: true,
        quality: size.quality,
        thumbnail_url: url,
        width: image.size?.width ?? null,
        height: image.size?.height ?? null,
        content_type: head.headers.get('content-type') ?? image.contentType,
        size_bytes: Number.isInteger(length) && length > 0 ? length : null,
      })
      return row
    } catch (error) {
      if (ctx.signal.aborted || error instanceof ToolBlockedError) throw error
      if (!(error instanceof UpstreamError)) throw error
      check.result = 'error'
      row.error = error.message
      return row
    }
  }
  return row
}

/** The image's size from its first bytes (a ranged GET, cut short once the header is read). */
async function sniffImage (ctx: Ctx, url: string): Promise<{ size: ReturnType<typeof imageSize>, contentType: string | null }> {
  const res = await ctx.http.fetch(url, { headers: { range: `bytes=0-${SNIFF_BYTES - 1}` }, timeoutMs: ctx.settings.timeout_ms })
  const contentType = res.headers.get('content-type')
  if (res.status !== 200 && res.status !== 206) {
    await res.body?.cancel().catch(() => {})
    return { size: null, contentType }
  }
  const reader = res.body?.getReader()
  if (!reader) return { size: null, contentType }
  const chunks: Uint8Array[] = []
  let received = 0
  let size: ReturnType<typeof imageSize> = null
  try {
    while (received < SNIFF_BYTES) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(value)
      received += value.length
      size = imageSize(Buffer.concat(chunks))
      if (size) break
    }
  } finally {
    await reader.cancel().catch(() => {})
  }
  return { size, contentType }
}
