// What a `yt` input names: a video, a channel (by id, handle or old /c/ or
// /user/ link) or a playlist. Pure; the host list is strict, as for video ids.
import { youtubeVideoId } from '../lib/media/index.ts'

export type Target =
  | { kind: 'video', id: string }
  | { kind: 'channel', id: string }
  /** A handle or legacy name: resolved to a channel id through /navigation/resolve_url. */
  | { kind: 'channel_url', url: string }
  | { kind: 'playlist', id: string }

const CHANNEL_ID = /^UC[A-Za-z0-9_-]{22}$/
const HANDLE = /^@[\p{L}\p{N}._-]{3,30}$/u
const PLAYLIST_ID = /^(?:PL|UU|LL|FL|OLAK5uy_|RD|UL)[A-Za-z0-9_-]{10,}$/
const YOUTUBE_HOSTS = /^(?:(?:www|m|music)\.)?youtube\.com$/i

export function parseTarget (input: string): Target | null {
  const s = input.trim()
  if (CHANNEL_ID.test(s)) return { kind: 'channel', id: s }
  if (HANDLE.test(s)) return { kind: 'channel_url', url: `https://www.youtube.com/${s}` }
  if (PLAYLIST_ID.test(s) && s.length > 11) return { kind: 'playlist', id: s }
  const video = youtubeVideoId(s)
  if (video) return { kind: 'video', id: video }
  let url: URL
  try { url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(s) ? s : `https://${s}`) } catch { return null }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !YOUTUBE_HOSTS.test(url.hostname)) return null
  const segments = url.pathname.split('/').filter(Boolean).map(decodeURIComponent)
  const list = url.searchParams.get('list')
  if (segments[0] === 'playlist' && list) return { kind: 'playlist', id: list }
  if (segments[0] === 'channel' && segments[1] && CHANNEL_ID.test(segments[1])) return { kind: 'channel', id: segments[1] }
  if (segments[0]?.startsWith('@') && HANDLE.test(segments[0])) return { kind: 'channel_url', url: `https://www.youtube.com/${segments[0]}` }
  if ((segments[0] === 'c' || segments[0] === 'user') && segments[1]) return { kind: 'channel_url', url: `https://www.youtube.com/${segments[0]}/${segments[1]}` }
  return null
}
