import t from 'tap'
import SwaggerParser from '@apidevtools/swagger-parser'
import type { OpenAPIV3 } from 'openapi-types'
import { build } from '../helpers/build.ts'
import { buildWithCounter } from '../helpers/jobs.ts'
import { toOpenApiSchema } from '../../core/openapi/json-schema-to-openapi.ts'

t.test('/openapi.json is a valid OpenAPI 3.0.3 document covering every route (real tool catalogue)', async t => {
  const app = await build(t)
  const res = await app.inject({ url: '/openapi.json' })
  t.equal(res.statusCode, 200)
  const doc = res.json() as OpenAPIV3.Document
  t.equal(doc.openapi, '3.0.3')
  t.equal(doc.info.version, '1.0.0')
  await t.resolves(SwaggerParser.validate(structuredClone(doc) as never), 'swagger-parser accepts it')

  const operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item!).map(m => `${m.toUpperCase()} ${path}`))
  for (const expected of [
    'POST /api/tool-run', 'POST /api/scrape', 'GET /api/tool-run/{id}/status', 'GET /api/tool-run/{id}/results', 'GET /api/tool-run/{id}/results.{fmt}',
    'DELETE /api/tool-run/{id}', 'GET /api/jobs', 'GET /api/jobs/{id}', 'GET /api/download/{id}/{fmt}', 'POST /api/website-email/find',
    'POST /api/auth/signup', 'POST /api/auth/login', 'GET /api/auth/me', 'POST /api/auth/tokens', 'GET /api/blog/list', 'POST /api/blog/post',
    'GET /api/health', 'GET /api/search/status', 'POST /mcp', 'GET /mcp/docs.md', 'GET /mcp/manifest.json',
  ]) t.ok(operations.includes(expected), expected)
  t.notOk(operations.some(o => o.startsWith('HEAD ')), 'no HEAD twins')

  // Route schemas become parameters and bodies.
  const results = doc.paths['/api/tool-run/{id}/results']!.get!
  const params = results.parameters as OpenAPIV3.ParameterObject[]
  t.match(params.find(p => p.name === 'limit'), { in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000 } })
  t.match(params.find(p => p.name === 'id'), { in: 'path', required: true })
  const signup = doc.paths['/api/auth/signup']!.post!
  t.same(signup.security, [], 'no key for signup')
  t.ok((signup.requestBody as OpenAPIV3.RequestBodyObject).content['application/json']!.schema)
  t.same(doc.paths['/mcp']!.post!.security, [{ bearerAuth: [] }])

  // Every enabled tool's params and rows, from the plugins' TypeBox schemas.
  const schemas = doc.components!.schemas!
  const keys = app.services.registry.enabled().map(x => x.declaration.key)
  for (const key of keys) {
    t.ok(schemas[`${key}_input`], `${key} stored input`)
    t.ok(schemas[`${key}_row`], `${key} row`)
  }
  // The start body: one branch per tool, {tool: its key, params: its params}; a defaulted param is optional there, required in the stored input.
  const toolRun = (doc.paths['/api/tool-run']!.post!.requestBody as OpenAPIV3.RequestBodyObject).content['application/json']!.schema as OpenAPIV3.SchemaObject
  const branches = toolRun.oneOf as OpenAPIV3.SchemaObject[]
  t.same(branches.map(b => (b.properties!.tool as OpenAPIV3.SchemaObject).enum), keys.map(k => [k]), 'a branch per tool, told apart by tool')
  const webemail = branches.find(b => (b.properties!.tool as OpenAPIV3.SchemaObject).enum![0] === 'webemail')!
  t.same(webemail.required, ['tool', 'params'])
  const webemailParams = webemail.properties!.params as OpenAPIV3.SchemaObject
  t.same(webemailParams.required, ['website'], 'max_pages, include_phones, include_socials have defaults: optional')
  t.equal((webemailParams.properties!.max_pages as OpenAPIV3.SchemaObject).default, 25)
  t.same((schemas.webemail_input as OpenAPIV3.SchemaObject).required, ['website', 'max_pages', 'include_phones', 'include_socials'], 'the stored input has them all')
  const input = doc.paths['/api/jobs/{id}/input']!.get!.responses['200'] as OpenAPIV3.ResponseObject
  t.same(input.content!['application/json']!.schema, { $ref: '#/components/schemas/JobInput' })
  t.same(Object.keys(doc.paths['/api/tool-run']!.post!.responses).includes('202'), true)
})

t.test('the document also validates with the test catalogue, and /docs draws it (Swagger UI)', async t => {
  const app = await buildWithCounter(t)
  const doc = (await app.inject({ url: '/openapi.json' })).json()
  await t.resolves(SwaggerParser.validate(structuredClone(doc)))
  const page = await app.inject({ url: '/docs' })
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /^text\/html/)
  t.match(page.body, /<div id="swagger-ui">/)
  t.notMatch(page.body, /https?:\/\//, 'self-contained: no CDN')
  t.notOk(Object.keys(doc.paths).some(path => path.startsWith('/docs')), 'the reference\'s own routes are pages, not API')
})

t.test('JSON Schema keywords become their OpenAPI 3.0 forms', async t => {
  t.same(toOpenApiSchema({ type: 'string', const: 'x' }), { type: 'string', enum: ['x'] })
  t.same(toOpenApiSchema({ anyOf: [{ type: 'string' }, { type: 'null' }], description: 'd' }), { nullable: true, type: 'string', description: 'd' })
  t.same(toOpenApiSchema({ type: ['integer', 'null'] }), { nullable: true, type: 'integer' })
  // 3.0 wants a type beside nullable: a union of literals is one enum (null among its values), another union carries the null in a branch.
  t.same(toOpenApiSchema({ anyOf: [{ anyOf: [{ const: 'a', type: 'string' }, { const: 'b', type: 'string' }] }, { type: 'null' }] }), { nullable: true, type: 'string', enum: ['a', 'b', null] })
  t.same(toOpenApiSchema({ anyOf: [{ const: 'a', type: 'string' }, { const: 'b', type: 'string' }] }), { type: 'string', enum: ['a', 'b'] })
  t.same(toOpenApiSchema({ anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }, { type: 'null' }] }), { anyOf: [{ type: 'string', nullable: true }, { type: 'array', items: { type: 'string' } }] })
  t.same(toOpenApiSchema({ type: ['string', 'integer', 'null'] }), { anyOf: [{ type: 'string', nullable: true }, { type: 'integer' }] })
  t.same(toOpenApiSchema({ type: 'null' }), { nullable: true, enum: [null], type: 'string' })
  t.same(toOpenApiSchema({ type: 'object', patternProperties: { '^.*$': {} } }), { type: 'object', additionalProperties: {} })
  t.same(toOpenApiSchema({ type: 'integer', exclusiveMinimum: 0 }), { type: 'integer', minimum: 0, exclusiveMinimum: true })
  t.same(toOpenApiSchema({ type: 'string', examples: ['a', 'b'], $id: 'X' }), { type: 'string', example: 'a' })
  t.same(toOpenApiSchema({ type: 'array', items: [{ type: 'string' }, { type: 'integer' }] }), { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } })
})

t.test('each operation is documented from its route: auth class, tag and answers, aliases included', async t => {
  const app = await build(t)
  const doc = (await app.inject({ url: '/openapi.json' })).json() as OpenAPIV3.Document
  const op = (path: string, method: 'get' | 'post') => doc.paths[path]![method] as OpenAPIV3.OperationObject
  t.same(op('/api/health', 'get').security, [], 'auth none: no key')
  t.notOk(op('/api/health', 'get').responses['401'])
  t.ok(op('/api/auth/me', 'get').responses['401'], 'undeclared or keyed routes answer 401')
  t.same(op('/api/blog/list', 'get').tags, ['Blog'])
  t.same(op('/api/auth/tokens', 'post').tags, ['Account'])
  const scrape = op('/api/scrape', 'post')
  t.same(scrape.tags, ['Jobs'])
  t.match(scrape.responses['202'], { content: { 'application/json': { schema: { $ref: '#/components/schemas/JobStarted' } } } })
  t.ok((scrape.requestBody as OpenAPIV3.RequestBodyObject).content['application/json']!.schema, 'the plugin\'s body')
  const find = op('/api/website-email/find', 'post')
  t.ok(find.responses['200'] && find.responses['408'], 'a synchronous alias documents its answer and its 408')
  t.match(op('/api/tool-run/{id}/status', 'get').responses['200'], { content: { 'application/json': { schema: { $ref: '#/components/schemas/JobStatus' } } } })
  const exportTypes = Object.keys((op('/api/jobs/{id}/results.{fmt}', 'get').responses['200'] as OpenAPIV3.ResponseObject).content!)
  t.ok(exportTypes.some(type => type.startsWith('text/csv')), 'exports are documented by content type')
})
