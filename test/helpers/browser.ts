// openBrowser(t): Debian's chromium driven by playwright-core, closed in
// teardown. `axeViolations(page)` runs axe-core in the page and returns the
// serious and critical violations; `screenshotIsBlank(png)` tells a page that
// rendered nothing (every sampled pixel the same colour) from one that did.
import { readFileSync, existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { chromium, type Browser, type Page } from 'playwright-core'
import { inflateSync } from 'node:zlib'

interface Teardown { teardown (fn: () => unknown): void }

export const chromiumPath = () => process.env.CHROMIUM_BIN ?? '/usr/bin/chromium'
export const haveChromium = () => existsSync(chromiumPath())

export async function openBrowser (t: Teardown): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    // --no-sandbox: CI runs as root, where chromium refuses its sandbox.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  })
  t.teardown(() => browser.close())
  return browser
}

const axeSource = () => readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

export interface AxeViolation { id: string, impact: string | null, help: string, nodes: number }

export async function axeViolations (page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ content: axeSource() }).catch(async () => {
    // A strict CSP refuses an inline script tag; evaluate the source instead.
    await page.evaluate(axeSource())
  })
  const results = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: () => Promise<{ violations: Array<{ id: string, impact: string | null, help: string, nodes: unknown[] }> }> } }).axe
    return (await axe.run()).violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length }))
  })
  return results.filter((v) => v.impact === 'serious' || v.impact === 'critical')
}

/** The RGB(A) pixels of a non-interlaced 8-bit PNG (what chromium's screenshots are), filters undone. */
export function decodePng (png: Buffer): { width: number, height: number, channels: number, pixels: Buffer } {
  const width = png.readUInt32BE(16)
  const height = png.readUInt32BE(20)
  const channels = png[25] === 6 ? 4 : 3
  const chunks: Buffer[] = []
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at)
    if (png.toString('latin1', at + 4, at + 8) === 'IDAT') chunks.push(png.subarray(at + 8, at + 8 + length))
    at += 12 + length
  }
  const raw = inflateSync(Buffer.concat(chunks))
  const rowBytes = width * channels
  const pixels = Buffer.alloc(rowBytes * height)
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (rowBytes + 1)]
    const line = raw.subarray(y * (rowBytes + 1) + 1, (y + 1) * (rowBytes + 1))
    const out = pixels.subarray(y * rowBytes, (y + 1) * rowBytes)
    const up = y > 0 ? pixels.subarray((y - 1) * rowBytes, y * rowBytes) : Buffer.alloc(rowBytes)
    for (let i = 0; i < rowBytes; i++) {
      const left = i >= channels ? out[i - channels] : 0
      const upLeft = i >= channels ? up[i - channels] : 0
      let predictor = 0
      if (filter === 1) predictor = left
      else if (filter === 2) predictor = up[i]
      else if (filter === 3) predictor = (left + up[i]) >> 1
      else if (filter === 4) {
        const p = left + up[i] - upLeft
        const pa = Math.abs(p - left); const pb = Math.abs(p - up[i]); const pc = Math.abs(p - upLeft)
        predictor = pa <= pb && pa <= pc ? left : pb <= pc ? up[i] : upLeft
      }
      out[i] = (line[i] + predictor) & 0xff
    }
  }
  return { width, height, channels, pixels }
}

/** True when every pixel of a screenshot has the same colour (the page drew nothing). */
export function screenshotIsBlank (png: Buffer): boolean {
  const { channels, pixels } = decodePng(png)
  for (let i = channels; i < pixels.length; i += channels) {
    if (pixels[i] !== pixels[0] || pixels[i + 1] !== pixels[1] || pixels[i + 2] !== pixels[2]) return false
  }
  return true
}
