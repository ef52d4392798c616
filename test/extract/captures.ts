// Real captured pages live outside the repository (third-party content, see
// ../shared/fixtures/captures/README.md) and are read at test time from there.
import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

// Tests run with cwd /work/main, so the shared folder is a sibling of the checkout.
export const CAPTURES_DIR = resolve('../shared/fixtures/captures')

export const capturesPresent = (): boolean => existsSync(CAPTURES_DIR)

interface Skippable { skip (name: string, cb: () => void): unknown }

/** Records a visible skipped subtest naming what is missing. */
export function skipWithoutCaptures (t: Skippable, needed: string): void {
  t.skip(`captures folder absent: ${CAPTURES_DIR} (needed for ${needed})`, () => {})
}

/** The text of a capture, or null after recording a visible skip when the folder is absent. */
export function readCapture (t: Skippable, relativePath: string): string | null {
  if (!existsSync(join(CAPTURES_DIR, relativePath))) {
    skipWithoutCaptures(t, relativePath)
    return null
  }
  return readFileSync(join(CAPTURES_DIR, relativePath), 'utf8')
}
