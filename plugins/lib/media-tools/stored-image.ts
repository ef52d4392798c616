// An image a row links to, also kept as a job file (the covers tools'
// `store_images`, yt_thumbs' `store_image`): fetched through ctx.http (the
// guard, the body cap) and its body streamed into ctx.artifact (the tier's
// file caps).
import { BlockedTargetError, FileTooLargeError, JobOutcomeError, Type, type GuardedRequestInit, type Static, type ToolContext } from '../../../core/tools/contract.ts'

/** A kept image in a row. */
export const StoredImage = Type.Object({
  id: Type.String(),
  name: Type.String(),
  url: Type.String({ description: 'The image on this server (a job artifact, kept as long as the rows).' }),
  size: Type.Integer(),
  content_type: Type.String(),
})
export type StoredImage = Static<typeof StoredImage>

type Ctx = Pick<ToolContext<unknown, unknown, unknown>, 'http' | 'artifact' | 'warn' | 'signal'>

/**
 * One per run. An image that cannot be kept (an HTTP error, not an image, a
 * cap) is a warning and null; once the job's files reach a cap, no further
 * image is tried. The guard's refusal and the job's stop are thrown.
 */
export class ImageKeeper {
  private full = false
  constructor (private readonly ctx: Ctx, private readonly init: GuardedRequestInit = {}) {}

  /**
   * `url` kept as `<stem>.<ext>`, the extension from the image's type; `what`
   * names it in a warning ("<id>: the thumbnail").
   */
  async keep (url: string, stem: string, what: string): Promise<StoredImage | null> {
    const { ctx } = this
    if (this.full) return null
    try {
      const res = await ctx.http.fetch(url, this.init)
      const contentType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
      if (!res.ok || !res.body || !contentType.startsWith('image/')) {
        await res.body?.cancel().catch(() => {})
        ctx.warn(`${what} was not kept (${res.ok ? `not an image: ${contentType || 'no type'}` : `HTTP ${res.status}`}).`)
        return null
      }
      const ext = (contentType.split('/')[1] ?? 'jpg').replace('jpeg', 'jpg').replace(/[^a-z0-9]/g, '').slice(0, 5) || 'jpg'
      const stored = await ctx.artifact({ name: `${stem}.${ext}`, contentType, body: res.body })
      return { id: stored.id, name: stored.name, url: stored.url, size: stored.size, content_type: stored.contentType }
    } catch (error) {
      if (ctx.signal.aborted || error instanceof BlockedTargetError) throw error
      if (error instanceof FileTooLargeError) this.full = true
      ctx.warn(`${what} was not kept (${error instanceof JobOutcomeError ? error.jobError : 'it could not be fetched'}).`)
      return null
    }
  }
}
