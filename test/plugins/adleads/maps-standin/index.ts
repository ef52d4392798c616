// Test-only stand-in for the `maps` tool, used by the adleads tests only when
// plugins/maps/index.ts does not exist yet: it asks the same Serper `/places`
// stand-in the real plugin would (POST, X-API-KEY, {q, page, gl}) and returns
// listing rows with the real plugin's field names.
import { defineTool, Type, UpstreamError } from '../../../../core/tools/contract.ts'

const N = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Number>>(s: T) => Type.Union([s, Type.Null()])

export default defineTool({
  key: 'maps',
  agentName: 'maps_search',
  title: 'Maps stand-in (test)',
  description: 'Test-only stand-in for the maps tool: listings from a Serper /places fixture server, with the real tool\'s row fields.',
  input: Type.Object({ query: Type.String(), max_results: Type.Integer({ minimum: 1, default: 20 }), country: Type.Optional(Type.String()) }, { additionalProperties: false }),
  row: Type.Object({ name: Type.String(), category: N(Type.String()), address: N(Type.String()), phone: N(Type.String()), website: N(Type.String()), rating: N(Type.Number()), review_count: N(Type.Number()), source_id: N(Type.String()), source: Type.String() }),
  // The real plugin's settings the adleads tests give, so one tools list serves both.
  settings: Type.Object({ sources: Type.Optional(Type.Array(Type.String())), max_pages_per_source: Type.Optional(Type.Integer()) }, { additionalProperties: false }),
  examples: [{ task: 'stand-in listings', args: { query: 'dentists in Austin TX', max_results: 5 } }],
  async run (ctx) {
    const key = ctx.upstream.requireCredential('serper', 'Maps search through Serper')
    const res = await ctx.http.json<{ places?: Array<Record<string, any>> }>(`${ctx.upstream.urls.serper}/places`, {
      method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ q: ctx.input.query, page: 1, gl: ctx.input.country }),
    })
    if (res.status !== 200) throw new UpstreamError(`Serper answered HTTP ${res.status}`)
    await ctx.push((res.body.places ?? []).slice(0, ctx.input.max_results).map(p => ({
      name: p.title, category: p.category ?? null, address: p.address ?? null, phone: p.phoneNumber ?? null, website: p.website ?? null,
      rating: p.rating ?? null, review_count: p.ratingCount ?? null, source_id: p.cid ?? null, source: 'serper',
    })))
  },
})
