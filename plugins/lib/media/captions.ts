// Captions: the creator's caption (text, hashtags, mentions) and subtitle
// files converted between WebVTT, YouTube's json3, SRT and plain text through
// one cue list. Pure functions, tested on real caption files.
import type { CreatorCaption, SubtitleCue } from './schemas.ts'
import { mediaItemFromInfo, pickSubtitleTrack, type SubtitleChoice } from './info-dict.ts'

// ---------------------------------------------------------------- creator caption

// A tag starts after a boundary that is not part of a word, a URL fragment
// (`page#top`) or an HTML entity (`&#39;`); it runs over letters, marks, digits
// and underscores in any script (#café, #東京), and is not digits only (#1 is no hashtag).
const HASHTAG = /(?<![\p{L}\p{M}\p{N}_&/#])#([\p{L}\p{M}\p{N}_]+)/gu
// Handles as Instagram and TikTok allow them (letters, digits, _ and .), not an
// e-mail address (a word character before the @) and not a trailing full stop.
const MENTION = /(?<![\p{L}\p{M}\p{N}_.@/])@([A-Za-z0-9_](?:[A-Za-z0-9_.]{0,28}[A-Za-z0-9_])?)/gu

const unique = (items: string[]): string[] => {
  const seen = new Set<string>()
  return items.filter(item => { const key = item.toLowerCase(); return seen.has(key) ? false : (seen.add(key), true) })
}

/** The caption with its hashtags and mentions (without # and @, first spelling kept, each once). */
export function creatorCaption (text: string | null | undefined): CreatorCaption {
  const caption = typeof text === 'string' && text.trim() !== '' ? text.trim() : null
  if (caption === null) return { caption: null, hashtags: [], mentions: [] }
  const hashtags = unique([...caption.matchAll(HASHTAG)].map(m => m[1]!).filter(tag => !/^\d+$/.test(tag)))
  const mentions = unique([...caption.matchAll(MENTION)].map(m => m[1]!))
  return { caption, hashtags, mentions }
}

// ---------------------------------------------------------------- timestamps

/** `hh:mm:ss.mmm`, `mm:ss.mmm` (WebVTT) or `hh:mm:ss,mmm` (SRT) → ms; null when malformed. */
export function parseTimestamp (text: string): number | null {
  const m = /^(?:(\d+):)?([0-5]?\d):([0-5]\d)[.,](\d{1,3})$/.exec(text.trim())
  if (!m) return null
  const ms = Number(m[4]!.padEnd(3, '0'))
  return ((Number(m[1] ?? 0) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1000 + ms
}

function clock (ms: number, separator: ',' | '.'): string {
  const total = Math.max(0, Math.round(ms))
  const h = Math.floor(total / 3_600_000)
  const m = Math.floor(total / 60_000) % 60
  const s = Math.floor(total / 1000) % 60
  const pad = (n: number, w = 2) => String(n).padStart(w, '0')
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(total % 1000, 3)}`
}

// ---------------------------------------------------------------- readers

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: '\'', nbsp: ' ', lrm: '\u200E', rlm: '\u200F' }
const decodeEntities = (text: string): string =>
  text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1))
      return Number.isFinite(code) && code > 0 && code <= 0x10FFFF ? String.fromCodePoint(code) : whole
    }
    return ENTITIES[name.toLowerCase()] ?? whole
  })

/** Cue text without WebVTT/SRT markup (<c>, <i>, <v Speaker>, inline <00:00:01.000> word times, {\an8}). */
const cueText = (lines: string[]): string =>
  decodeEntities(lines.join('\n').replace(/<[^>\n]*>/g, '').replace(/\{\\[^}\n]*\}/g, ''))
    .split('\n').map(line => line.trim()).filter(line => line !== '').join('\n')

const TIMING = /^\s*(\S+)\s+-->\s+(\S+)/

/**
 * Cues of a WebVTT or SRT file. A cue is a timing line and the text lines
 * after it, up to the first blank line; leading blank lines are skipped
 * because yt-dlp's SRT of automatic captions starts cues with an empty line.
 * The cue identifier (SRT's number, an optional WebVTT id) is the line just
 * before a timing line, so it never joins the previous cue's text, and the
 * WebVTT header, NOTE, STYLE and REGION blocks, which follow a blank line,
 * never do either.
 */
function cuesFromText (text: string): SubtitleCue[] {
  const lines = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').split('\n')
  const timings = lines.flatMap((line, i) => (TIMING.test(line) ? [i] : []))
  const cues: SubtitleCue[] = []
  timings.forEach((at, n) => {
    const [, from, to] = TIMING.exec(lines[at]!)!
    const start = parseTimestamp(from!)
    const end = parseTimestamp(to!)
    if (start === null || end === null) return
    let stop = timings[n + 1] ?? lines.length
    if (n + 1 < timings.length && stop - 1 > at && lines[stop - 1]!.trim() !== '') stop-- // the next cue's identifier
    let i = at + 1
    while (i < stop && lines[i]!.trim() === '') i++
    const body: string[] = []
    for (; i < stop && lines[i]!.trim() !== ''; i++) body.push(lines[i]!)
    const cueBody = cueText(body)
    if (cueBody !== '') cues.push({ start_ms: start, end_ms: Math.max(start, end), text: cueBody })
  })
  return cues
}

/** WebVTT → cues (cue ids and settings ignored). */
export function parseWebVtt (text: string): SubtitleCue[] {
  return cuesFromText(text)
}

/** SRT → cues. */
export function parseSrt (text: string): SubtitleCue[] {
  return cuesFromText(text)
}

interface Json3Event { tStartMs?: unknown, dDurationMs?: unknown, aAppend?: unknown, segs?: Array<{ utf8?: unknown }> }

/**
 * YouTube timedtext `fmt=json3` → cues. Events without text (window
 * definitions, the line breaks of automatic captions, marked `aAppend`) are
 * skipped. Automatic captions overlap (each line stays up while the next one
 * is spoken), so a cue ends no later than the next one starts, which keeps the
 * SRT and VTT written from them readable.
 */
export function parseJson3 (json: string | { events?: unknown }): SubtitleCue[] {
  const data = typeof json === 'string' ? JSON.parse(json) as { events?: unknown } : json
  const events = Array.isArray(data?.events) ? data.events as Json3Event[] : []
  const cues: SubtitleCue[] = []
  for (const event of events) {
    if (!Array.isArray(event?.segs) || event.aAppend) continue
    const start = typeof event.tStartMs === 'number' ? event.tStartMs : null
    if (start === null) continue
    const duration = typeof event.dDurationMs === 'number' ? event.dDurationMs : 0
    const text = event.segs.map(s => (typeof s?.utf8 === 'string' ? s.utf8 : '')).join('')
      .split('\n').map(line => line.trim()).filter(line => line !== '').join('\n')
    if (text === '') continue
    cues.push({ start_ms: Math.max(0, Math.round(start)), end_ms: Math.max(0, Math.round(start + duration)), text })
  }
  cues.sort((a, b) => a.start_ms - b.start_ms)
  for (let i = 0; i + 1 < cues.length; i++) {
    const next = cues[i + 1]!.start_ms
    if (cues[i]!.end_ms > next && next > cues[i]!.start_ms) cues[i]!.end_ms = next
  }
  return cues
}

/** A subtitle file by its yt-dlp extension (vtt, srt, json3) → cues; null for a format this module does not read. */
export function parseSubtitles (text: string, ext: string): SubtitleCue[] | null {
  switch (ext.toLowerCase()) {
    case 'vtt': return parseWebVtt(text)
    case 'srt': return parseSrt(text)
    case 'json3': return parseJson3(text)
    default: return null
  }
}

// ---------------------------------------------------------------- writers

/** Cues → SRT (numbered from 1, `hh:mm:ss,mmm`). */
export function cuesToSrt (cues: SubtitleCue[]): string {
  return cues.map((cue, i) => `${i + 1}\n${clock(cue.start_ms, ',')} --> ${clock(cue.end_ms, ',')}\n${srtSafe(cue.text)}\n`).join('\n')
}

/** Cues → WebVTT (`&`, `<` and `>` escaped as the format requires). */
export function cuesToVtt (cues: SubtitleCue[]): string {
  const body = cues.map(cue => `${clock(cue.start_ms, '.')} --> ${clock(cue.end_ms, '.')}\n${vttSafe(cue.text)}\n`).join('\n')
  return `WEBVTT\n\n${body}`
}

// A blank line ends a cue in both formats, and "-->" in text reads as a timing line.
const noBlankLines = (text: string) => text.split('\n').filter(line => line.trim() !== '').join('\n').replace(/-->/g, '->')
const srtSafe = (text: string) => noBlankLines(text)
const vttSafe = (text: string) => noBlankLines(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/**
 * Cues → plain text, one caption line per line. Automatic captions roll (each
 * cue repeats the previous line above the new one), so a line equal to the
 * line just written is not written again.
 */
export function cuesToText (cues: SubtitleCue[]): string {
  const out: string[] = []
  for (const cue of cues) {
    for (const line of cue.text.split('\n')) {
      if (line !== out[out.length - 1]) out.push(line)
    }
  }
  return out.length ? `${out.join('\n')}\n` : ''
}

/**
 * A subtitle file in the three forms ig_captions stores (.srt, .vtt, .txt),
 * from a file of yt-dlp's extension `ext` (vtt, srt, json3); null for a format
 * this module does not read. The extraction-pool entry point for a caption file.
 */
export function convertSubtitles (text: string, ext: string): { srt: string, vtt: string, txt: string, cues: number } | null {
  const cues = parseSubtitles(text, ext)
  if (cues === null) return null
  return { srt: cuesToSrt(cues), vtt: cuesToVtt(cues), txt: cuesToText(cues), cues: cues.length }
}

// ---------------------------------------------------------------- ig_captions

/**
 * What ig_captions needs from one `-J` answer, in one trip to the extraction
 * pool: the item's identity, the creator's caption split by creatorCaption,
 * and the subtitle track to fetch for `language` (pickSubtitleTrack: the
 * uploader's before automatic captions; null when none is offered). Throws
 * SyntaxError on text that is not JSON.
 */
export function captionsInfoFromJson (json: string, language: string): { id: string, url: string | null, platform: string | null, author: string | null, caption: CreatorCaption, track: SubtitleChoice | null, languages: string[] } {
  const info = JSON.parse(json) as Record<string, unknown>
  const item = mediaItemFromInfo(info)
  return {
    id: item.id,
    url: item.url,
    platform: item.platform,
    author: item.channel ?? item.uploader,
    caption: creatorCaption(item.description ?? item.title),
    track: pickSubtitleTrack(info, language, ['vtt', 'srt', 'json3']),
    languages: [...new Set([...item.subtitles, ...item.automatic_captions].map(t => t.language))],
  }
}
