// ig_captions's input and row: the one schema of each (the declaration's and the
// run's types come from here; run.ts never imports index.ts, which loads it).
import { Defaulted, Nullable, NullableFields, Type } from '../../core/tools/contract.ts'
import { CreatorCaption } from '../lib/media/index.ts'
import { PLATFORMS, platformUrlInput } from '../lib/media-tools/index.ts'

const MAX_REELS = 50

const CaptionFile = Type.Object({
  format: Type.Union([Type.Literal('srt'), Type.Literal('vtt'), Type.Literal('txt')]),
  id: Type.String(),
  name: Type.String(),
  url: Type.String({ description: 'The file on this server (a job artifact, kept as long as the rows).' }),
  size: Type.Integer(),
})

export const igCaptionsRow = Type.Object({
    input_url: Type.String({ description: 'The link as given.' }),
    ...NullableFields(Type.String(), 'id', 'url', 'author'),
    ...CreatorCaption.properties,
    subtitle_language: Nullable(Type.String({ description: 'The track found for the asked language (a regional variant counts), null when none was offered.' })),
    subtitle_automatic: Nullable(Type.Boolean({ description: 'The track is an automatic (speech-recognised) caption, not the uploader\'s.' })),
    subtitle_text: Nullable(Type.String({ description: 'The subtitles as plain text, one line per caption line.' })),
    subtitle_cues: Type.Integer({ description: 'Timed cues in the track (0 without one).' }),
    languages_offered: Type.Array(Type.String(), { description: 'Every subtitle and automatic-caption language the item offers.' }),
    files: Type.Array(CaptionFile, { description: 'The subtitles as .srt, .vtt and .txt files (empty without a track).' }),
})

export const igCaptionsInput = Type.Object({
  url: platformUrlInput(PLATFORMS.instagram, { maxItems: MAX_REELS, what: 'a reel or a video post' }),
  language: Defaulted(Type.String({ minLength: 2, maxLength: 20, pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$', description: 'Subtitle language (ISO 639 code, e.g. en, es, pt-BR); a regional variant of it counts.' }), 'en'),
}, { additionalProperties: false })
