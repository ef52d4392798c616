// YouTube links → the 11-character video id, for every form people paste.
// Pure; the host list is strict so a look-alike domain is not taken for YouTube.

const VIDEO_ID = /^[A-Za-z0-9_-]{11}$/
const YOUTUBE_HOSTS = /^(?:(?:www|m|music|gaming)\.)?youtube\.com$|^(?:www\.)?youtube-nocookie\.com$/i
const SHORT_HOSTS = /^(?:www\.)?youtu\.be$/i
// Path forms whose next segment is the id.
const PATH_FORMS = new Set(['shorts', 'embed', 'live', 'v', 'e', 'vi'])

/**
 * The video id of a YouTube link or of a bare id: watch?v=, youtu.be/<id>,
 * /shorts/<id>, /embed/<id> (also youtube-nocookie.com), /live/<id>, /v/<id>,
 * on www., m., music. and without a scheme. Null for anything else (a channel,
 * a playlist without v=, another site).
 */
export function youtubeVideoId (input: string): string | null {
  const text = input.trim()
  if (VIDEO_ID.test(text)) return text
  let url: URL
  try { url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`) } catch { return null }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null
  const segments = url.pathname.split('/').filter(s => s !== '')
  let candidate: string | null | undefined = null
  if (SHORT_HOSTS.test(url.hostname)) candidate = segments[0]
  else if (YOUTUBE_HOSTS.test(url.hostname)) {
    if (segments[0] === 'watch' || segments.length === 0) candidate = url.searchParams.get('v')
    else if (PATH_FORMS.has(segments[0]!)) candidate = segments[1]
  }
  return candidate && VIDEO_ID.test(candidate) ? candidate : null
}

/** The canonical watch URL of a video id. */
export const youtubeWatchUrl = (id: string): string => `https://www.youtube.com/watch?v=${id}`
