// Module hooks (node:module register) that append every file URL resolved to
// the file named by MODULE_LOG: the lazy-load test reads what importing a
// plugin's declaration loads. Test-only; registered by ./register.mjs.
import { appendFileSync } from 'node:fs'

export async function resolve (specifier, context, next) {
  const result = await next(specifier, context)
  if (process.env.MODULE_LOG && result.url.startsWith('file:')) appendFileSync(process.env.MODULE_LOG, `${result.url}\n`)
  return result
}
