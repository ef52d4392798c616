// yt_thumbs's input and row: the one schema of each (the declaration's and the
// run's types come from here; run.ts never imports index.ts, which loads it).
import { Defaulted, LinkOrId, Nullable, OneOrMany, Type } from '../../core/tools/contract.ts'
import { StoredImage } from '../lib/media-tools/stored-image.ts'
import { MAX_VIDEOS } from './list.ts'

const Quality = Type.Union([Type.Literal('maxres'), Type.Literal('sd'), Type.Literal('hq'), Type.Literal('mq'), Type.Literal('default')])

export const ytThumbsRow = Type.Object({
  input_url: Type.String({ description: 'The link or id as given (the one of the list this row came from).' }),
  video_id: Type.String(),
  video_url: Type.String(),
  found: Type.Boolean({ description: 'A real thumbnail exists (YouTube\'s 120×90 "no thumbnail" placeholder does not count).' }),
  quality: Nullable(Quality),
  thumbnail_url: Nullable(Type.String({ description: 'The image on YouTube\'s host.' })),
  width: Nullable(Type.Integer({ description: 'Read from the image itself.' })),
  height: Nullable(Type.Integer()),
  content_type: Nullable(Type.String()),
  size_bytes: Nullable(Type.Integer()),
  checked: Type.Array(Type.Object({
    quality: Quality,
    url: Type.String(),
    result: Type.Union([Type.Literal('found'), Type.Literal('missing'), Type.Literal('placeholder'), Type.Literal('error')]),
    http_status: Nullable(Type.Integer()),
  }), { description: 'Each size asked for, best first, and what the host answered.' }),
  error: Nullable(Type.String({ description: 'Why this video could not be checked (the image host failed).' })),
  file: Nullable(StoredImage, { description: 'The stored copy of the image (store_image: true); null otherwise or when it could not be kept.' }),
})

export const ytThumbsInput = Type.Object({
  url: OneOrMany(LinkOrId(), { maxItems: MAX_VIDEOS, description: 'A YouTube video link (watch, youtu.be, shorts, embed, live) or an 11-character video id, or a list of them: each is checked in turn and each row names it in input_url.' }),
  image_format: Defaulted(Type.Union([Type.Literal('jpg'), Type.Literal('webp')], { description: 'jpg (every video) or webp (smaller files; most videos since about 2013).' }), 'jpg'),
  store_image: Defaulted(Type.Boolean({ description: 'true: also keep the image found as a file on this server (the row\'s file: a download URL kept as long as the rows, within the plan\'s file size caps); false: linked only.' }), false),
}, { additionalProperties: false })
