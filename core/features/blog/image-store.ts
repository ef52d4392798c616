// Generated featured images, kept as files under DATA_DIR/blog-images and
// served by GET /api/blog/images/<name>. A post stores the image's path on this
// server (`/api/blog/images/<uuid>.png`): the public address of the service is
// not known here, and a path keeps working behind any host or proxy.
import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import type { GeneratedImage } from './image-maker.ts'

const IMAGE_ROUTE_PREFIX = '/api/blog/images/'
/** Names this store gives: a random UUID and the sniffed type. Nothing else is ever served. */
const IMAGE_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.(png|jpg|webp|gif)$/
const CONTENT_TYPES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif' }

/** True for a path this store hands out, so a post read back can be sent to PUT unchanged. */
export function isStoredImagePath (value: string): boolean {
  return value.startsWith(IMAGE_ROUTE_PREFIX) && IMAGE_NAME.test(value.slice(IMAGE_ROUTE_PREFIX.length))
}

export class BlogImageStore {
  readonly dir: string

  constructor (dataDir: string) {
    this.dir = join(dataDir, 'blog-images')
  }

  /** Writes the image and returns the path it is served at. */
  async save (image: GeneratedImage): Promise<string> {
    const name = `${randomUUID()}.${image.extension}`
    await mkdir(this.dir, { recursive: true })
    await writeFile(join(this.dir, name), image.bytes, { mode: 0o644 })
    return IMAGE_ROUTE_PREFIX + name
  }

  /** The file behind a served name, or null for a name this store never gave out. */
  find (name: string): { path: string, contentType: string } | null {
    const match = IMAGE_NAME.exec(name)
    if (!match) return null
    const path = join(this.dir, name)
    if (!existsSync(path)) return null
    return { path, contentType: CONTENT_TYPES[match[1]!]! }
  }
}
