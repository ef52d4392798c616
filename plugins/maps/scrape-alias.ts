// POST /api/scrape: the map-listing scrape with the maps params at the top
// level (and an optional webhook beside them). Its job's status and results
// are linked under /api/jobs/<id>, as the spec's scrape API has them.
import { InputError, Type, type ToolAlias } from '../../core/tools/contract.ts'

// query and prompt: one text or a list of them; the maps input schema sets the limits.
const ScrapeText = Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })]))

const ScrapeBody = Type.Object({
  query: ScrapeText,
  prompt: ScrapeText,
  max_results: Type.Optional(Type.Integer({ minimum: 1 })),
  deep_scan: Type.Optional(Type.Boolean()),
}, { additionalProperties: true, description: 'The maps params (query or prompt, max_results, deep_scan, location, country, language, source) at the top level.' })

export const scrapeAlias: ToolAlias<typeof ScrapeBody> = {
  method: 'POST',
  path: '/api/scrape',
  summary: 'Start a map-listing scrape (the maps tool) from its params at the top level',
  body: ScrapeBody,
  webhook: true,
  jobLinks: 'jobs',
  params (body) {
    if (!body.query && !body.prompt) throw new InputError('Send either query or prompt.')
    return body
  },
}
