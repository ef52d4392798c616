// Pure parts of `yt_tx`: the caption tracks a /player answer offers, the
// choice of one (language, automatic fallback, translation) and a timedtext
// json3 answer → cues and the .txt/.srt/.vtt texts. No I/O: the worker pool
// runs them (ctx.extract.call) and tests run them on the real captures.
import { cuesToSrt, cuesToText, cuesToVtt, parseJson3 } from '../lib/media/captions.ts'
import { playabilityOf, type Playability } from '../lib/youtube/playability.ts'

type Json = any

export interface CaptionTrack { language: string, name: string | null, kind: 'manual' | 'auto', base_url: string, translatable: boolean }
/** What a /player answer offers: the video, whether it plays (the YouTube library's one reader), its caption tracks. */
export interface PlayerCaptions { video_id: string | null, title: string | null, playability: Playability, tracks: CaptionTrack[], translation_languages: string[] }

const text = (node: Json): string | null => (typeof node?.simpleText === 'string' ? node.simpleText : Array.isArray(node?.runs) ? node.runs.map((r: Json) => r?.text ?? '').join('') : null)

export function captionsFromPlayer (body: string): PlayerCaptions {
  const player: Json = JSON.parse(body)
  const list = player?.captions?.playerCaptionsTracklistRenderer ?? {}
  return {
    video_id: player?.videoDetails?.videoId ?? null,
    title: player?.videoDetails?.title ?? null,
    playability: playabilityOf(player),
    tracks: (list.captionTracks ?? []).filter((t: Json) => typeof t?.baseUrl === 'string' && typeof t?.languageCode === 'string').map((t: Json) => ({
      language: t.languageCode, name: text(t.name), kind: t.kind === 'asr' ? 'auto' : 'manual', base_url: t.baseUrl, translatable: t.isTranslatable === true,
    })),
    translation_languages: (list.translationLanguages ?? []).map((l: Json) => l?.languageCode).filter((c: unknown): c is string => typeof c === 'string'),
  }
}

const base = (code: string) => code.toLowerCase().split('-')[0]

/**
 * The track to fetch: the uploader's track in the language before the
 * automatic one (when allowed), the exact code before a regional variant;
 * with `translateTo`, a track in that language if one exists, else the best
 * translatable track (manual first, the asked `language` first) translated.
 * Null when nothing fits.
 */
export function pickTrack (tracks: CaptionTrack[], language: string, options: { auto: boolean, translateTo: string | null, translationLanguages: string[] }): { track: CaptionTrack, translate: string | null } | null {
  const usable = tracks.filter(t => options.auto || t.kind === 'manual')
  const find = (lang: string) => {
    const order = (t: CaptionTrack) => (t.kind === 'manual' ? 0 : 2) + (t.language.toLowerCase() === lang.toLowerCase() ? 0 : 1)
    return usable.filter(t => base(t.language) === base(lang)).sort((a, b) => order(a) - order(b))[0] ?? null
  }
  if (options.translateTo) {
    const direct = find(options.translateTo)
    if (direct) return { track: direct, translate: null }
    if (!options.translationLanguages.some(l => base(l) === base(options.translateTo!))) return null
    const source = find(language) ?? usable.filter(t => t.translatable).sort((a, b) => (a.kind === 'manual' ? 0 : 1) - (b.kind === 'manual' ? 0 : 1))[0]
    return source && source.translatable ? { track: source, translate: options.translateTo } : null
  }
  const track = find(language)
  return track ? { track, translate: null } : null
}

/** A timedtext json3 answer → timed segments (seconds) and the three file texts. */
export function transcriptFromJson3 (body: string): { segments: Array<{ start_seconds: number, end_seconds: number, text: string }>, txt: string, srt: string, vtt: string } {
  const cues = parseJson3(body)
  return {
    segments: cues.map(c => ({ start_seconds: c.start_ms / 1000, end_seconds: c.end_ms / 1000, text: c.text })),
    txt: cuesToText(cues), srt: cuesToSrt(cues), vtt: cuesToVtt(cues),
  }
}
