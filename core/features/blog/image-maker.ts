// Asks an OpenAI-compatible images endpoint (POST {LLM_BASE_URL}/images/generations,
// model LLM_IMAGE_MODEL) for a post's featured image. The answer carries the
// image as base64 (`b64_json`) or as a link (`url`, which the big providers
// expire within hours, so it is downloaded at once). Every way it can fail ends
// as ImageUnavailable: the caller stores the article without an image.
import { readCappedBody } from './capped-body.ts'

export interface ImageSettings { baseUrl: string | null, apiKey: string | null, imageModel: string | null }

export class ImageUnavailable extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'ImageUnavailable'
  }
}

export interface GeneratedImage { bytes: Buffer, contentType: string, extension: string }

/** A generated image is a few MB at most; anything bigger is refused rather than stored. */
const MAX_IMAGE_BYTES = 10 * 1024 * 1024
/** Image answers in base64 are a third larger than the image, plus the JSON around it. */
const MAX_ANSWER_BYTES = Math.ceil(MAX_IMAGE_BYTES * 4 / 3) + 64 * 1024

/** The image type from its first bytes: the answer's own content-type is not trusted. */
function sniffImage (bytes: Buffer): { contentType: string, extension: string } | null {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return { contentType: 'image/png', extension: 'png' }
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return { contentType: 'image/jpeg', extension: 'jpg' }
  if (bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') return { contentType: 'image/webp', extension: 'webp' }
  if (bytes.length >= 6 && /^GIF8[79]a$/.test(bytes.toString('latin1', 0, 6))) return { contentType: 'image/gif', extension: 'gif' }
  return null
}

export function imagePrompt (title: string, excerpt: string): string {
  const about = excerpt ? `${title}. ${excerpt}` : title
  return `A clean, modern featured image for a business blog article: "${about.slice(0, 600)}". No text, letters or logos in the image.`
}

export class ImageMaker {
  constructor (private readonly settings: ImageSettings, private readonly timeoutMs: number) {}

  get configured (): boolean {
    return Boolean(this.settings.baseUrl && this.settings.imageModel)
  }

  async make (prompt: string): Promise<GeneratedImage> {
    if (!this.configured) throw new ImageUnavailable('no image model is configured (LLM_IMAGE_MODEL)')
    const timeout = AbortSignal.timeout(this.timeoutMs)
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' }
    if (this.settings.apiKey) headers.authorization = `Bearer ${this.settings.apiKey}`
    const answer = await this.fetchBytes(this.settings.baseUrl!.replace(/\/+$/, '') + '/images/generations', {
      method: 'POST',
      headers,
      // No response_format: some models refuse it; both answer forms are read below.
      body: JSON.stringify({ model: this.settings.imageModel, prompt, n: 1, size: '1024x1024' }),
    }, timeout, MAX_ANSWER_BYTES)
    let body: unknown
    try {
      body = JSON.parse(answer.toString('utf8'))
    } catch {
      throw new ImageUnavailable('the image model answered something that is not JSON')
    }
    const first = (body as { data?: Array<{ b64_json?: unknown, url?: unknown }> } | null)?.data?.[0]
    let bytes: Buffer
    if (typeof first?.b64_json === 'string' && first.b64_json !== '') {
      bytes = Buffer.from(first.b64_json, 'base64')
    } else if (typeof first?.url === 'string' && /^https?:\/\//i.test(first.url)) {
      bytes = await this.fetchBytes(first.url, { method: 'GET' }, timeout, MAX_IMAGE_BYTES)
    } else {
      throw new ImageUnavailable('the image model answered without an image (no data[0].b64_json or url)')
    }
    const kind = sniffImage(bytes)
    if (!kind) throw new ImageUnavailable('the image model answered with bytes that are not a PNG, JPEG, WebP or GIF image')
    return { bytes, ...kind }
  }

  private async fetchBytes (url: string, init: RequestInit, timeout: AbortSignal, cap: number): Promise<Buffer> {
    let res: Response
    let bytes: Buffer
    try {
      res = await fetch(url, { ...init, signal: timeout, redirect: 'follow' })
      bytes = await readCappedBody(res, cap, () => new ImageUnavailable(`the image model answered with more than ${Math.round(cap / 1024 / 1024)} MB`))
    } catch (err) {
      if (err instanceof ImageUnavailable) throw err
      if (timeout.aborted) throw new ImageUnavailable(`the image model did not answer within ${Math.round(this.timeoutMs / 1000)} s`)
      throw new ImageUnavailable('the image model could not be reached')
    }
    if (res.status < 200 || res.status >= 300) throw new ImageUnavailable(`the image model answered HTTP ${res.status}`)
    return bytes
  }
}
