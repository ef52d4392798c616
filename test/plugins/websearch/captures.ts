// Real SERP captures live outside the repo (../shared/fixtures/captures, see
// its PROVENANCE.tsv); they are read at test time and never copied in.
import { existsSync, readFileSync } from 'node:fs'
import { resolve, join } from 'node:path'

export const CAPTURES_DIR = resolve('../shared/fixtures/captures')
export const SERP_DIR = join(CAPTURES_DIR, 'serp')

export const capturesAvailable = () => existsSync(SERP_DIR)

export const readSerpCapture = (name: string): string => readFileSync(join(SERP_DIR, name), 'utf8')

/** The visible notice tap prints when the captures are missing. */
export const MISSING_CAPTURES = `SERP captures not found at ${SERP_DIR}; capture-based tests skipped`
