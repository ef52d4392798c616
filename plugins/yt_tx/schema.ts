// yt_tx's input and row: the one schema of each (the declaration's and the
// run's types come from here; run.ts never imports index.ts, which loads it).
import { Defaulted, LinkOrId, Nullable, OneOrMany, Type } from '../../core/tools/contract.ts'
import { MAX_VIDEOS } from './list.ts'

const fileRef = Type.Object({ name: Type.String(), url: Type.String({ description: 'Download path on this server (kept as long as the rows).' }), size: Type.Integer() })

export const ytTxRow = Type.Object({
  input_url: Type.String(),
  video_id: Type.String(),
  url: Type.String(),
  title: Nullable(Type.String()),
  has_captions: Type.Boolean({ description: 'false: the video has no caption track that fits (the row says which exist).' }),
  language: Nullable(Type.String({ description: 'The track fetched (or its translation target).' })),
  language_name: Nullable(Type.String()),
  kind: Nullable(Type.Union([Type.Literal('manual'), Type.Literal('auto')], { description: 'manual: the uploader\'s captions; auto: YouTube\'s automatic speech recognition.' })),
  translated_from: Nullable(Type.String({ description: 'Set when YouTube translated the track (translate_to).' })),
  available_languages: Type.Array(Type.Object({ language: Type.String(), name: Nullable(Type.String()), kind: Type.String() })),
  segments: Type.Array(Type.Object({ start_seconds: Type.Number(), end_seconds: Type.Number(), text: Type.String() })),
  text: Nullable(Type.String()),
  files: Type.Array(fileRef, { description: '.txt, .srt and .vtt of the transcript.' }),
  error: Nullable(Type.String()),
})

export const ytTxInput = Type.Object({
  url: OneOrMany(LinkOrId(), { maxItems: MAX_VIDEOS, description: 'A YouTube video link or 11-character id, or a list of them.' }),
  language: Defaulted(Type.String({ pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?$', description: 'Caption language wanted (en, de, pt-BR…): the uploader\'s track first, then the automatic one.' }), 'en'),
  auto_captions: Defaulted(Type.Boolean({ description: 'Fall back to YouTube\'s automatic captions when the uploader gave none in the language.' }), true),
  translate_to: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?$', description: 'Ask YouTube to translate the captions into this language when no track in it exists.' })),
}, { additionalProperties: false })
