// Where the service's code and files are. The same source runs two ways: from
// TypeScript under tsx (tests, `npm run dev`), and compiled into dist/ by
// scripts/build.mjs (`npm start`). Code finds code next to itself either way
// (dist/ keeps the source layout), but the files that are not code (the
// migrations under prisma/, package.json) are only in the repository root,
// which is one level further up for the compiled copy.
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** True when this process runs the compiled JavaScript under dist/. */
export const COMPILED = import.meta.url.endsWith('.js')

/** The suffix of the service's own modules in this process: a plugin's `index.ts`, or `index.js` compiled. */
export const CODE_EXTENSION = COMPILED ? '.js' : '.ts'

/** The directory holding core/ and plugins/ as this process runs them: the repository, or dist/. */
export const CODE_ROOT = dirname(dirname(fileURLToPath(import.meta.url)))

/** The repository root: package.json, prisma/ (the migrations), tools.config.json. */
export const SERVICE_ROOT = COMPILED ? resolve(CODE_ROOT, '..') : CODE_ROOT
