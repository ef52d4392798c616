// Pure InnerTube parsers for `yt`: the JSON text of /player, /next and /browse
// answers → plain rows. No I/O, no clock (relative dates are resolved against
// a `now` the caller passes), no imports beyond types (schema.ts) and the YouTube
// library's pure playability reader, so the kernel's worker pool runs them
// (ctx.extract.call) and the tests run them on real captures.
//
// YouTube renames renderers often (videoRenderer → lockupViewModel in 2025),
// so lists are read by walking the tree for every known item shape rather
// than by one fixed path, and each field falls back through the shapes seen
// in the captures.

type Json = any

import type { Chapter, ChannelFields, Thumbnail, VideoFields } from './schema.ts'
import { playabilityOf, type Playability } from '../lib/youtube/playability.ts'

export type { Chapter, ChannelFields, Playability, Thumbnail, VideoFields }

export interface VideoPage { videos: VideoFields[], continuation: string | null }

// ---------------------------------------------------------------- small readers

/** simpleText, runs, or a view model's `content`, as one string. */
export function text (node: Json): string | null {
  if (node == null) return null
  if (typeof node === 'string') return node
  if (typeof node.simpleText === 'string') return node.simpleText
  if (Array.isArray(node.runs)) return node.runs.map((r: Json) => r?.text ?? '').join('')
  if (typeof node.content === 'string') return node.content
  return null
}

const MULTIPLIERS: Record<string, number> = { k: 1e3, thousand: 1e3, m: 1e6, million: 1e6, b: 1e9, bn: 1e9, billion: 1e9 }

/**
 * "6,403,051 views" → 6403051, "24.6m subscribers" → 24600000, "8.84K" → 8840,
 * "1.8bn views" → 1800000000, "No views" → 0; null when there is no number.
 * Abbreviated counts are YouTube's rounding, not exact.
 */
export function parseCount (value: string | null | undefined): number | null {
  if (value == null) return null
  const s = String(value).trim()
  if (/^no\b/i.test(s)) return 0
  const m = /(\d[\d,.\u00a0 ]*)\s*(thousand|million|billion|bn|k|m|b)?\b/i.exec(s)
  if (!m) return null
  const unit = m[2]?.toLowerCase()
  let digits = m[1]!.replace(/[\u00a0 ]/g, '').replace(/[.,]$/, '')
  if (unit) {
    digits = digits.replace(/,/g, '.')
    const n = Number(digits)
    return Number.isFinite(n) ? Math.round(n * MULTIPLIERS[unit]!) : null
  }
  const n = Number(digits.replace(/[,.]/g, ''))
  return Number.isFinite(n) ? n : null
}

/** "1:07:34" → 4054, "22:00" → 1320; null when not a clock. */
export function parseClock (value: string | null | undefined): number | null {
  if (!value) return null
  const m = /^(?:(\d+):)?(\d{1,2}):(\d{2})$/.exec(value.trim())
  if (!m) return null
  return Number(m[1] ?? 0) * 3600 + Number(m[2]) * 60 + Number(m[3])
}

const UNIT_DAYS: Record<string, number> = { second: 1 / 86400, minute: 1 / 1440, hour: 1 / 24, day: 1, week: 7, month: 30.44, year: 365.25 }

/**
 * "3 days ago", "Streamed 2 weeks ago", "1 year ago" → the ISO date that far
 * before `now` (to the day); null for anything else. As exact as YouTube's
 * wording: to the day within a week, to the week or month after.
 */
export function relativeDate (value: string | null | undefined, now: number): string | null {
  if (!value) return null
  const m = /(\d+)\s+(second|minute|hour|day|week|month|year)s?\s+ago/i.exec(value)
  if (!m) return null
  const days = Number(m[1]) * UNIT_DAYS[m[2]!.toLowerCase()]!
  return new Date(now - days * 86_400_000).toISOString().slice(0, 10)
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']

/** "Joined Jul 19, 2007", "28 Aug 2016", "May 21, 2012" → "2007-07-19"; null otherwise. */
export function englishDate (value: string | null | undefined): string | null {
  if (!value) return null
  const mdy = /([A-Za-z]{3})[a-z]*\.?\s+(\d{1,2}),?\s+(\d{4})/.exec(value)
  const dmy = /(\d{1,2})\s+([A-Za-z]{3})[a-z]*\.?\s+(\d{4})/.exec(value)
  const [month, day, year] = mdy ? [mdy[1]!, mdy[2]!, mdy[3]!] : dmy ? [dmy[2]!, dmy[1]!, dmy[3]!] : []
  const index = month ? MONTHS.indexOf(month.toLowerCase()) : -1
  if (index < 0) return null
  return `${year}-${String(index + 1).padStart(2, '0')}-${day!.padStart(2, '0')}`
}

function thumbnails (list: Json): Thumbnail[] {
  const items: Json[] = Array.isArray(list?.thumbnails) ? list.thumbnails : Array.isArray(list?.sources) ? list.sources : Array.isArray(list) ? list : []
  return items
    .filter(t => typeof t?.url === 'string')
    .map(t => ({ url: t.url.startsWith('//') ? `https:${t.url}` : t.url, width: Number.isInteger(t.width) ? t.width : null, height: Number.isInteger(t.height) ? t.height : null }))
    .sort((a, b) => (b.width ?? 0) * (b.height ?? 0) - (a.width ?? 0) * (a.height ?? 0))
}

/** Depth-first walk; `visit` returns true to stop descending into that node. */
function walk (node: Json, visit: (key: string, value: Json) => boolean | void, skip: Set<string> = new Set()): void {
  if (node == null || typeof node !== 'object') return
  if (Array.isArray(node)) { for (const item of node) walk(item, visit, skip); return }
  for (const [key, value] of Object.entries(node)) {
    if (skip.has(key)) continue
    if (visit(key, value) === true) continue
    walk(value, visit, skip)
  }
}

function find (node: Json, wanted: string, skip?: Set<string>): Json {
  let found: Json
  walk(node, (key, value) => {
    if (found !== undefined) return true
    if (key === wanted) { found = value; return true }
  }, skip)
  return found
}

const channelUrl = (id: string | null): string | null => (id ? `https://www.youtube.com/channel/${id}` : null)
const watchUrl = (id: string): string => `https://www.youtube.com/watch?v=${id}`

function parseJson (body: string, what: string): Json {
  try { return JSON.parse(body) } catch { throw new SyntaxError(`${what}: not JSON`) }
}

// ---------------------------------------------------------------- video (/player + /next)

function chaptersOf (next: Json): Chapter[] {
  const chapters: Chapter[] = []
  // The player bar's markers (description and automatic chapters).
  walk(next?.playerOverlays, (key, value) => {
    if (key !== 'markersMap' || !Array.isArray(value)) return
    for (const marker of value) {
      if (!/CHAPTERS/.test(String(marker?.key))) continue
      for (const c of marker?.value?.chapters ?? []) {
        const r = c?.chapterRenderer
        const title = text(r?.title)
        if (title !== null && Number.isFinite(Number(r?.timeRangeStartMillis))) chapters.push({ title, start_seconds: Math.round(Number(r.timeRangeStartMillis) / 1000) })
      }
    }
    return true
  })
  if (chapters.length) return chapters
  // Else the "In this video" engagement panel's list.
  walk(next?.engagementPanels, (key, value) => {
    if (key !== 'macroMarkersListItemRenderer') return
    const title = text(value?.title)
    const start = parseClock(text(value?.timeDescription))
    if (title !== null && start !== null) chapters.push({ title, start_seconds: start })
    return true
  })
  return chapters
}

function likeCount (next: Json): number | null {
  let likes: number | null = null
  walk(next?.contents, (key, value) => {
    if (likes !== null) return true
    if (key === 'likeButtonViewModel' || key === 'segmentedLikeDislikeButtonRenderer') {
      const button = find(value, 'buttonViewModel') ?? find(value, 'toggleButtonRenderer')
      // The accessibility text has the exact number ("along with 1,234,567 other people"); the title is rounded ("35K").
      const exact = /along with ([\d,.\s]+) other/i.exec(String(button?.accessibilityText ?? ''))
      likes = exact ? parseCount(exact[1]) : parseCount(text(button?.title) ?? text(button?.defaultText))
      return true
    }
  })
  return likes
}

function commentCount (next: Json): number | null {
  for (const panel of next?.engagementPanels ?? []) {
    const r = panel?.engagementPanelSectionListRenderer
    if (r?.panelIdentifier !== 'engagement-panel-comments-section' && r?.targetId !== 'engagement-panel-comments-section') continue
    const shown = text(r?.header?.engagementPanelTitleHeaderRenderer?.contextualInfo)
    if (shown !== null) return parseCount(shown)
  }
  let count: number | null = null
  walk(next?.contents, (key, value) => {
    if (count !== null) return true
    if (key === 'commentsEntryPointHeaderRenderer') { count = parseCount(text(value?.commentCount)); return true }
  })
  return count
}

function isPortrait (player: Json): boolean {
  const formats: Json[] = [...(player?.streamingData?.formats ?? []), ...(player?.streamingData?.adaptiveFormats ?? [])]
  const video = formats.find(f => Number.isInteger(f?.width) && Number.isInteger(f?.height))
  return video ? video.height > video.width : false
}

/**
 * A video's row fields from its /player and /next answers (either may be null).
 * Views, duration, tags, description, category and the exact publish date come
 * from /player; likes, comment count and chapters from /next, which also fills
 * in what /player lacked.
 */
export function videoFromResponses (playerText: string | null, nextText: string | null, videoId: string): VideoFields {
  const player: Json = playerText ? parseJson(playerText, 'player answer') : {}
  const next: Json = nextText ? parseJson(nextText, 'next answer') : {}
  const details = player?.videoDetails ?? {}
  const micro = player?.microformat?.playerMicroformatRenderer ?? {}
  const primary = find(next?.contents, 'videoPrimaryInfoRenderer') ?? {}
  const owner = find(next?.contents, 'videoOwnerRenderer') ?? {}
  const ownerId: string | null = details.channelId ?? micro.externalChannelId ?? owner?.navigationEndpoint?.browseEndpoint?.browseId ?? null
  const ownerPath: string | null = owner?.navigationEndpoint?.browseEndpoint?.canonicalBaseUrl ?? null
  const duration = Number(details.lengthSeconds ?? micro.lengthSeconds)
  const views = details.viewCount ?? micro.viewCount
  const live = micro.liveBroadcastDetails ?? {}
  const publishedIso: string | null = micro.publishDate ?? micro.uploadDate ?? null
  const nextUrl = String(next?.currentVideoEndpoint?.commandMetadata?.webCommandMetadata?.url ?? '')
  const description = details.shortDescription ?? text(micro.description) ?? null
  return {
    video_id: details.videoId ?? videoId,
    url: watchUrl(details.videoId ?? videoId),
    title: details.title ?? text(micro.title) ?? text(primary.title),
    channel_name: details.author ?? micro.ownerChannelName ?? text(owner.title),
    channel_id: ownerId,
    channel_url: ownerPath ? `https://www.youtube.com${ownerPath}` : (typeof micro.ownerProfileUrl === 'string' ? micro.ownerProfileUrl.replace(/^http:/, 'https:') : channelUrl(ownerId)),
    view_count: views !== undefined ? parseCount(String(views)) : parseCount(text(primary.viewCount?.videoViewCountRenderer?.viewCount)),
    like_count: likeCount(next),
    comment_count: commentCount(next),
    duration_seconds: Number.isFinite(duration) && (duration > 0 || !details.isLive) ? duration : null,
    published_at: publishedIso ? publishedIso.slice(0, 10) : englishDate(text(primary.dateText)),
    published_text: text(primary.dateText) ?? publishedIso,
    tags: Array.isArray(details.keywords) ? details.keywords : [],
    category: micro.category ?? null,
    description: description === '' ? null : description,
    thumbnails: thumbnails(details.thumbnail ?? micro.thumbnail),
    chapters: chaptersOf(next),
    is_live: details.isLive === true || live.isLiveNow === true,
    was_live: details.isLiveContent === true,
    // YouTube says "short" in its URLs, not in the player: the watch-next
    // endpoint of a short is /shorts/<id>; else a portrait video of 3 minutes or less.
    is_short: nextUrl.startsWith('/shorts/') || (Number.isFinite(duration) && duration > 0 && duration <= 180 && isPortrait(player)),
  }
}

// ---------------------------------------------------------------- list items (channel tab, playlist)

function emptyVideo (id: string): VideoFields {
  return {
    video_id: id, url: watchUrl(id), title: null, channel_name: null, channel_id: null, channel_url: null,
    view_count: null, like_count: null, comment_count: null, duration_seconds: null, published_at: null, published_text: null,
    tags: [], category: null, description: null, thumbnails: [], chapters: [], is_live: false, was_live: false, is_short: false,
  }
}

function fromVideoRenderer (r: Json, now: number): VideoFields | null {
  if (typeof r?.videoId !== 'string') return null
  const v = emptyVideo(r.videoId)
  v.title = text(r.title)
  const byline = r.shortBylineText?.runs?.[0] ?? r.ownerText?.runs?.[0] ?? r.longBylineText?.runs?.[0]
  if (byline) {
    v.channel_name = byline.text ?? null
    v.channel_id = byline.navigationEndpoint?.browseEndpoint?.browseId ?? null
    v.channel_url = channelUrl(v.channel_id)
  }
  const info: string[] = (r.videoInfo?.runs ?? []).map((x: Json) => String(x?.text ?? ''))
  const viewsText = text(r.viewCountText) ?? info.find(s => /view/i.test(s)) ?? null
  v.view_count = parseCount(viewsText)
  v.published_text = text(r.publishedTimeText) ?? info.find(s => /ago/i.test(s)) ?? null
  v.published_at = relativeDate(v.published_text, now)
  const overlay = (r.thumbnailOverlays ?? []).map((o: Json) => o?.thumbnailOverlayTimeStatusRenderer).find(Boolean)
  v.duration_seconds = Number.isFinite(Number(r.lengthSeconds)) && r.lengthSeconds !== undefined ? Number(r.lengthSeconds) : parseClock(text(r.lengthText) ?? text(overlay?.text))
  v.description = text(r.descriptionSnippet)
  v.thumbnails = thumbnails(r.thumbnail)
  v.is_live = (r.badges ?? []).some((b: Json) => /LIVE/.test(String(b?.metadataBadgeRenderer?.style))) || overlay?.style === 'LIVE'
  v.was_live = /stream/i.test(v.published_text ?? '')
  v.is_short = overlay?.style === 'SHORTS' || String(r.navigationEndpoint?.commandMetadata?.webCommandMetadata?.url ?? '').startsWith('/shorts/')
  return v
}

function fromLockup (r: Json, now: number): VideoFields | null {
  if (typeof r?.contentId !== 'string' || (r.contentType && r.contentType !== 'LOCKUP_CONTENT_TYPE_VIDEO')) return null
  const v = emptyVideo(r.contentId)
  const meta = r.metadata?.lockupMetadataViewModel ?? {}
  v.title = text(meta.title)
  const parts: string[] = []
  for (const row of meta.metadata?.contentMetadataViewModel?.metadataRows ?? []) for (const part of row?.metadataParts ?? []) { const s = text(part?.text); if (s) parts.push(s) }
  v.view_count = parseCount(parts.find(s => /view/i.test(s)))
  v.published_text = parts.find(s => /ago/i.test(s)) ?? null
  v.published_at = relativeDate(v.published_text, now)
  let badge: string | null = null
  walk(r.contentImage, (key, value) => {
    if (badge !== null) return true
    if (key === 'thumbnailBadgeViewModel') { badge = text(value?.text); return true }
  })
  v.duration_seconds = parseClock(badge)
  v.is_live = /^live$/i.test(String(badge ?? ''))
  v.was_live = /stream/i.test(v.published_text ?? '')
  v.thumbnails = thumbnails(r.contentImage?.thumbnailViewModel?.image)
  const url = String(find(r.rendererContext, 'url') ?? '')
  v.is_short = url.startsWith('/shorts/')
  return v
}

function fromPlaylistItem (r: Json, now: number): VideoFields | null {
  const v = fromVideoRenderer(r, now)
  if (v && typeof r.lengthSeconds === 'string') v.duration_seconds = Number(r.lengthSeconds)
  return v
}

function fromShort (r: Json): VideoFields | null {
  const id = r?.onTap?.innertubeCommand?.reelWatchEndpoint?.videoId ?? r?.videoId
  if (typeof id !== 'string') return null
  const v = emptyVideo(id)
  v.title = text(r.overlayMetadata?.primaryText) ?? text(r.headline)
  v.view_count = parseCount(text(r.overlayMetadata?.secondaryText) ?? text(r.viewCountText))
  v.thumbnails = thumbnails(r.thumbnail)
  v.is_short = true
  return v
}

// Parts of a browse answer that hold other lists (related videos, the header's panels).
const NOT_THE_LIST = new Set(['header', 'topbar', 'sidebar', 'engagementPanels', 'secondaryResults', 'chipBarViewModel', 'feedFilterChipBarRenderer'])

/**
 * The videos of a channel tab, a playlist, or one of their continuation
 * pages, in order, and the token of the next page (null at the end). `now`
 * resolves "3 days ago" to a date.
 */
export function videosFromBrowse (body: string, now: number): VideoPage {
  const data = parseJson(body, 'browse answer')
  const videos: VideoFields[] = []
  const seen = new Set<string>()
  let continuation: string | null = null
  const add = (v: VideoFields | null) => { if (v && !seen.has(v.video_id)) { seen.add(v.video_id); videos.push(v) } }
  walk(data, (key, value) => {
    switch (key) {
      case 'videoRenderer': case 'gridVideoRenderer': add(fromVideoRenderer(value, now)); return true
      case 'playlistVideoRenderer': add(fromPlaylistItem(value, now)); return true
      case 'lockupViewModel': add(fromLockup(value, now)); return true
      case 'shortsLockupViewModel': case 'reelItemRenderer': add(fromShort(value)); return true
      case 'continuationItemRenderer': {
        const token = value?.continuationEndpoint?.continuationCommand?.token ?? value?.continuationEndpoint?.commandExecutorCommand?.commands?.find((c: Json) => c?.continuationCommand)?.continuationCommand?.token
        if (typeof token === 'string') continuation = token
        return true
      }
    }
  }, NOT_THE_LIST)
  return { videos, continuation }
}

// ---------------------------------------------------------------- channel (/browse header, about panel)

/** The channel's own fields from a channel tab's /browse answer (header, metadata, microformat). */
export function channelFromBrowse (body: string): ChannelFields & { about_token: string | null } {
  const data = parseJson(body, 'browse answer')
  const meta = data?.metadata?.channelMetadataRenderer ?? {}
  const header = data?.header ?? {}
  const pageHeader = header.pageHeaderRenderer?.content?.pageHeaderViewModel
  const c4 = header.c4TabbedHeaderRenderer
  const rows: string[] = []
  for (const row of pageHeader?.metadata?.contentMetadataViewModel?.metadataRows ?? []) for (const part of row?.metadataParts ?? []) { const s = text(part?.text); if (s) rows.push(s) }
  const subscriberText = rows.find(s => /subscriber/i.test(s)) ?? text(c4?.subscriberCountText) ?? null
  const videoText = rows.find(s => /\bvideos?\b/i.test(s)) ?? text(c4?.videosCountText) ?? null
  const handle = rows.find(s => s.startsWith('@')) ?? text(c4?.channelHandleText) ?? null
  let aboutToken: string | null = null
  walk(header, (key, value) => {
    if (aboutToken !== null) return true
    if (key === 'continuationItemRenderer') { aboutToken = value?.continuationEndpoint?.continuationCommand?.token ?? null; return true }
  })
  const verified = /verified/i.test(String(pageHeader?.title?.dynamicTextViewModel?.rendererContext?.accessibilityContext?.label ?? '')) ||
    (c4?.badges ?? []).some((b: Json) => /VERIFIED/.test(String(b?.metadataBadgeRenderer?.style)))
  const id: string | null = meta.externalId ?? c4?.channelId ?? null
  return {
    channel_id: id,
    channel_name: meta.title ?? text(pageHeader?.title?.dynamicTextViewModel?.text) ?? c4?.title ?? null,
    channel_url: meta.channelUrl ?? channelUrl(id),
    handle,
    description: typeof meta.description === 'string' && meta.description.trim() !== '' ? meta.description.trim() : null,
    subscriber_count: parseCount(subscriberText),
    subscriber_text: subscriberText,
    total_views: null,
    video_count: parseCount(videoText),
    country: null,
    joined_date: null,
    links: [],
    keywords: typeof meta.keywords === 'string' ? (meta.keywords.match(/"[^"]+"|\S+/g) ?? []).map((k: string) => k.replace(/"/g, '')) : [],
    verified,
    thumbnails: thumbnails(meta.avatar ?? pageHeader?.image?.decoratedAvatarViewModel?.avatar?.avatarViewModel?.image),
    about_token: aboutToken,
  }
}

/** The about panel (a /browse continuation answer): total views, joined date, country, links, exact counts. */
export function aboutFromBrowse (body: string): Partial<ChannelFields> {
  const data = parseJson(body, 'about answer')
  const about = find(data, 'aboutChannelViewModel')
  if (!about) return {}
  const links: ChannelFields['links'] = []
  walk(about.links, (key, value) => {
    if (key !== 'channelExternalLinkViewModel') return
    const link = text(value?.link)
    if (link) links.push({ title: text(value?.title), url: /^https?:\/\//i.test(link) ? link : `https://${link}` })
    return true
  })
  const out: Partial<ChannelFields> = { links }
  const subscribers = text(about.subscriberCountText)
  if (subscribers) { out.subscriber_text = subscribers; out.subscriber_count = parseCount(subscribers) }
  const views = parseCount(text(about.viewCountText))
  if (views !== null) out.total_views = views
  const videos = parseCount(text(about.videoCountText))
  if (videos !== null) out.video_count = videos
  if (typeof about.country === 'string') out.country = about.country
  const joined = englishDate(text(about.joinedDateText))
  if (joined) out.joined_date = joined
  if (typeof about.description === 'string' && about.description.trim() !== '') out.description = about.description.trim()
  return out
}

/** The playlist's title and owner from its /browse answer (null where the page lacks them, as on a continuation). */
export function playlistFromBrowse (body: string): { title: string | null, owner: string | null } {
  const data = parseJson(body, 'browse answer')
  const title = data?.metadata?.playlistMetadataRenderer?.title ?? data?.microformat?.microformatDataRenderer?.title ?? null
  const owner = text(find(data?.sidebar, 'videoOwnerRenderer')?.title)
  return { title, owner }
}

/** A channel id from a /navigation/resolve_url answer (handles, /c/ and /user/ links). */
export function channelIdFromResolve (body: string): string | null {
  const data = parseJson(body, 'resolve answer')
  const id = data?.endpoint?.browseEndpoint?.browseId
  return typeof id === 'string' && id.startsWith('UC') ? id : null
}

// ---------------------------------------------------------------- pool entry points (one trip per answer)

/** A video from its /player and /next answers, with the player's playability. */
export function readVideo (playerText: string | null, nextText: string | null, videoId: string): { video: VideoFields, playability: Playability } {
  const player = playerText ? parseJson(playerText, 'player answer') : {}
  return { video: videoFromResponses(playerText, nextText, videoId), playability: playabilityOf(player) }
}

/** A channel tab's first /browse answer: the channel's figures, the about panel's token, the first videos. */
export function readChannelPage (body: string, now: number): { channel: ReturnType<typeof channelFromBrowse>, page: VideoPage } {
  return { channel: channelFromBrowse(body), page: videosFromBrowse(body, now) }
}

/** A playlist's first /browse answer: its title and owner, the first videos. */
export function readPlaylistPage (body: string, now: number): { playlist: ReturnType<typeof playlistFromBrowse>, page: VideoPage } {
  return { playlist: playlistFromBrowse(body), page: videosFromBrowse(body, now) }
}
