// Builds the OpenAPI 3.0.3 document from the recorded route table. Request
// schemas are the ones each route validates with; the job routes' answers and
// every tool's params and rows come from the kernel's and the plugins' TypeBox
// schemas, converted to the 3.0 dialect.
import { Type, type TSchema } from 'typebox'
import type { FastifyContextConfig } from 'fastify'
import type { ToolRegistry } from '../tools/registry.ts'
import type { ToolDeclaration } from '../tools/contract.ts'
import { JobInputSchema, JobResultsSchema, JobStarted, JobStatusSchema } from '../jobs/schemas.ts'
import { toOpenApiSchema } from './json-schema-to-openapi.ts'

type Schema = Record<string, unknown>

export interface RecordedRoute {
  method: string
  url: string
  schema?: { body?: TSchema, querystring?: TSchema, params?: TSchema, headers?: TSchema, response?: Record<string, TSchema>, summary?: string, description?: string }
  config?: FastifyContextConfig
  websocket: boolean
}

const ErrorBody = Type.Object({ detail: Type.String({ description: 'Human-readable message.' }) })

/** The sections of the document; a route names its own (config.tag, see core/route-defaults.ts), else Service. */
const TAGS: Record<string, string> = {
  Agent: 'MCP endpoint and agent discovery documents.',
  Account: 'Signup, login, profile and usage, keys and scoped tokens.',
  Blog: 'Blog posts.',
  Jobs: 'Start tools as jobs, read status and results, export, cancel.',
  Monitors: 'Tool calls on a schedule, each run compared with the last: what was added, removed or changed.',
  Webhooks: 'A job\'s webhook deliveries and their attempts, redelivery, and the account\'s default webhook.',
  Documentation: 'This description.',
  Service: 'Health and tool status endpoints.',
}

const STATUS_TEXT: Record<string, string> = {
  400: 'Missing or malformed parameter.', 401: 'Missing or invalid key.', 403: 'The key or tier does not allow this.', 404: 'Not found.',
  408: 'The job did not finish in the window; it goes on.', 409: 'Conflict (e.g. results before the job finished).', 410: 'Retired or disabled tool key.',
  413: 'Body over 1 MB.', 429: 'Rate limit or quota exceeded; see Retry-After.', 500: 'Server error; retry.', 503: 'Database or upstream unavailable.',
}

const toOpenApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')
const pathParamNames = (url: string) => [...url.matchAll(/:([A-Za-z0-9_]+)/g)].map(m => m[1]!)

function operationId (method: string, url: string, taken: Set<string>): string {
  const base = `${method.toLowerCase()}_${url.replace(/[:{}]/g, '').replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '')}` || method.toLowerCase()
  let id = base
  for (let n = 2; taken.has(id); n++) id = `${base}_${n}`
  taken.add(id)
  return id
}

function parameters (where: 'query' | 'path' | 'header', schema: TSchema | undefined, url: string): Schema[] {
  const s = (schema ?? {}) as Schema & { properties?: Record<string, Schema>, required?: string[] }
  const props = s.properties ?? {}
  const required = new Set(s.required ?? [])
  const list: Schema[] = Object.entries(props).map(([name, p]) => {
    const converted = toOpenApiSchema(p)
    const description = converted.description as string | undefined
    delete converted.description
    return { name, in: where, required: where === 'path' || required.has(name), schema: converted, ...(description ? { description } : {}) }
  })
  if (where === 'path') {
    // A path parameter the route does not declare in a schema is still a string.
    for (const name of pathParamNames(url)) if (!props[name]) list.push({ name, in: 'path', required: true, schema: { type: 'string' } })
  }
  return list
}

/**
 * The stored params of a job (GET /api/jobs/<id>/input): the request schema
 * with every defaulted field required, as the kernel filled it in. The request
 * side lists only what a caller must give.
 */
function filledIn (params: Schema): Schema {
  const properties = (params.properties ?? {}) as Record<string, Schema>
  const defaulted = Object.keys(properties).filter(k => properties[k]!.default !== undefined)
  if (!defaulted.length) return params
  return { ...params, required: [...new Set([...(params.required as string[] | undefined ?? []), ...defaulted])] }
}

/**
 * The body of POST /api/tool-run as one branch per tool, `{tool: <its key>,
 * params: <its params>, webhook?}`, told apart by the `tool` value, so a
 * generated client types `params` from `tool`. The branches are inline in the
 * request body, not components: openapi-typescript makes a property with a
 * default mandatory everywhere but in request bodies and parameters, and a
 * defaulted param is one a caller may leave out.
 */
function startUnion (body: Schema, tools: StartBranch[]): Schema {
  const { webhook } = body.properties as Record<string, Schema>
  const branches = tools.map(({ key, title, params }) => {
    // Required fields or declared alternatives (anyOf/oneOf of required sets): an empty params is a 400.
    const mustGive = (Array.isArray(params.required) && params.required.length > 0) || Boolean(params.anyOf ?? params.oneOf)
    return {
      type: 'object',
      title: `${key}: ${title}`,
      required: mustGive ? ['tool', 'params'] : ['tool'],
      properties: { tool: { type: 'string', enum: [key] }, params, ...(webhook ? { webhook } : {}) },
    }
  })
  return { oneOf: branches, description: 'A tool key and its params: one branch per enabled tool, told apart by `tool` (see GET /api/tools).' }
}

interface StartBranch { key: string, title: string, params: Schema, example: Record<string, unknown> }

/**
 * A tool's first declared example cut to what a caller must give: its required
 * fields and the first declared alternative the example satisfies.
 */
export function minimalParams (declaration: Pick<ToolDeclaration, 'input' | 'examples'>): Record<string, unknown> {
  const input = declaration.input as { required?: string[], anyOf?: Array<{ required?: string[] }>, oneOf?: Array<{ required?: string[] }> }
  const args = (declaration.examples[0]?.args ?? {}) as Record<string, unknown>
  const keep = new Set(input.required ?? [])
  const alternative = (input.anyOf ?? input.oneOf ?? []).find(set => set.required?.every(k => k in args))
  for (const k of alternative?.required ?? []) keep.add(k)
  return Object.fromEntries(Object.entries(args).filter(([k]) => keep.has(k)))
}

const startValue = (tool: StartBranch) => Object.keys(tool.example).length ? { tool: tool.key, params: tool.example } : { tool: tool.key }

/** The start body's examples, one a tool (Swagger UI's try-it offers them in a list). */
function startExamples (tools: StartBranch[]): Record<string, unknown> {
  return Object.fromEntries(tools.map(tool => [tool.key, { summary: `${tool.key}: ${tool.title}`, value: startValue(tool) }]))
}

/** POST /api/tool-run's description: a curl command a tool, to copy. */
function startDescription (tools: StartBranch[]): string {
  const quoted = (value: unknown) => `'${JSON.stringify(value).replaceAll("'", "'\\''")}'`
  return [
    'Starts a tool as a job (202 with its status and results URLs). One example per tool, with only what it requires ($API_KEY is your key, $BASE this server):',
    ...tools.map(tool => `**${tool.key}** (${tool.title})\n\n\`\`\`sh\ncurl -X POST "$BASE/api/tool-run" -H "x-api-key: $API_KEY" -H 'content-type: application/json' \\\n  -d ${quoted(startValue(tool))}\n\`\`\``),
  ].join('\n\n')
}

const json = (schema: Schema) => ({ 'application/json': { schema } })
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })

export function buildOpenApiDocument (routes: RecordedRoute[], registry: ToolRegistry): Record<string, unknown> {
  const components: Record<string, Schema> = {
    Error: toOpenApiSchema(ErrorBody),
    JobStarted: toOpenApiSchema(JobStarted),
    JobStatus: toOpenApiSchema(JobStatusSchema),
  }
  const toolParams: StartBranch[] = []
  const toolRows: Schema[] = []
  const toolInputs: Schema[] = []
  for (const tool of registry.enabled()) {
    const key = tool.declaration.key
    const params = toOpenApiSchema(tool.declaration.input)
    toolParams.push({ key, title: tool.declaration.title, params, example: minimalParams(tool.declaration) })
    components[`${key}_input`] = { ...filledIn(params), description: `The params of a job of the tool '${key}' (${tool.declaration.title}) as stored: defaults filled in, per-run fields clamped.` }
    components[`${key}_row`] = { ...toOpenApiSchema(tool.declaration.row), description: `One result row of the tool '${key}'.` }
    toolInputs.push(ref(`${key}_input`))
    toolRows.push(ref(`${key}_row`))
  }
  components.JobResults = toOpenApiSchema(JobResultsSchema)
  components.JobInput = toOpenApiSchema(JobInputSchema)

  if (toolRows.length) (components.JobResults.properties as Record<string, Schema>).results = { type: 'array', items: { anyOf: toolRows } }
  if (toolInputs.length) (components.JobInput.properties as Record<string, Schema>).params = { anyOf: toolInputs, description: 'The params as stored: the tool\'s own schema with its defaults filled in.' }

  // Kernel schemas a route may declare as its answer, named once in components.
  const named = new Map<unknown, string>([[JobStarted, 'JobStarted'], [JobStatusSchema, 'JobStatus'], [JobResultsSchema, 'JobResults'], [JobInputSchema, 'JobInput']])

  const paths: Record<string, Record<string, unknown>> = {}
  const taken = new Set<string>()
  const sorted = [...routes].sort((a, b) => a.url.localeCompare(b.url) || a.method.localeCompare(b.method))
  for (const route of sorted) {
    // Pages for browsers (core/features/web) are not part of the API.
    if (route.config?.webPage) continue
    const { method, url, schema = {} } = route
    const tag = route.config?.tag ?? 'Service'
    const operation: Record<string, unknown> = {
      operationId: operationId(method, url, taken),
      tags: [tag],
      summary: schema.summary ?? `${method} ${url}`,
    }
    if (schema.description) operation.description = schema.description
    if (route.websocket) operation.description = 'WebSocket upgrade: JSON progress messages, then the final status record (see README).'
    const params = [...parameters('path', schema.params, url), ...parameters('query', schema.querystring, url), ...parameters('header', schema.headers, url)]
    if (params.length) operation.parameters = params

    if (schema.body) {
      const body = toOpenApiSchema(schema.body)
      const isStart = method === 'POST' && url === '/api/tool-run' && toolParams.length > 0
      const content: Record<string, unknown> = isStart
        ? { 'application/json': { schema: startUnion(body, toolParams), examples: startExamples(toolParams) } }
        : json(body)
      if (isStart) operation.description = startDescription(toolParams)
      operation.requestBody = { required: true, content: { ...content, ...(route.config?.formBody ? { 'multipart/form-data': { schema: route.config.formBody } } : {}) } }
    } else if (method === 'POST' && url === '/mcp') {
      operation.requestBody = { required: true, content: json({ type: 'object', description: 'A JSON-RPC 2.0 request (initialize, tools/list, tools/call, prompts/list, prompts/get, resources/list, resources/read) or a batch.' }) }
    }

    const responses: Record<string, unknown> = {}
    const declared = route.config?.responses
    if (declared) {
      for (const [status, answer] of Object.entries(declared)) {
        responses[status] = { description: STATUS_TEXT[status] ?? 'Success.', content: 'content' in answer ? answer.content : json(named.has(answer) ? ref(named.get(answer)!) : toOpenApiSchema(answer)) }
      }
    } else if (schema.response) {
      for (const [status, s] of Object.entries(schema.response)) responses[status] = { description: STATUS_TEXT[status] ?? 'Success.', content: json(toOpenApiSchema(s)) }
    } else if (route.websocket) {
      responses['101'] = { description: 'Switching protocols to a WebSocket.' }
    } else {
      responses['200'] = { description: 'Success.', content: json({ type: 'object' }) }
    }
    // The route's access class (enforced from the same declaration by the auth hook, see core/auth/guards.ts).
    const auth = route.config?.auth
    const isPublic = auth === 'none'
    if (!isPublic) responses['401'] = { $ref: '#/components/responses/Unauthorized' }
    // `key` admits every valid key; the other classes refuse some kinds (or, admin, every key when ADMIN_API_KEY is unset).
    if (!isPublic && auth !== 'key') responses['403'] = { $ref: '#/components/responses/Forbidden' }
    if (!responses['400'] && (schema.body || schema.querystring || schema.params)) responses['400'] = { $ref: '#/components/responses/BadRequest' }
    responses['429'] = { $ref: '#/components/responses/TooManyRequests' }
    responses.default = { $ref: '#/components/responses/Error' }
    operation.responses = responses

    if (isPublic) operation.security = []
    else if (route.config?.authChallenge) operation.security = [{ bearerAuth: [] }]
    else if (route.config?.acceptsBlogKey) operation.security = [{ apiKey: [] }, { blogKey: [] }]

    const path = toOpenApiPath(url)
    paths[path] ??= {}
    paths[path]![method.toLowerCase()] = operation
  }

  const errorResponse = (description: string, headers?: Record<string, unknown>) => ({ description, ...(headers ? { headers } : {}), content: json(ref('Error')) })
  return {
    openapi: '3.0.3',
    info: {
      title: 'Data-extraction jobs API',
      version: '1.0.0',
      description: 'Tools run as asynchronous jobs: start one with POST /api/tool-run, poll its status, read or export its rows. ' +
        'Every error body is {detail}. Agents: the MCP endpoint is POST /mcp (guide: /mcp/docs.md).',
    },
    servers: [{ url: '/' }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    security: [{ apiKey: [] }],
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'Personal sk- key, scoped scp- token, guest pub- token or the admin key.' },
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'The agent endpoint: a personal sk- key or a scoped scp- token.' },
        blogKey: { type: 'apiKey', in: 'header', name: 'X-Blog-Key', description: 'The older blog key (BLOG_API_KEY), accepted on blog writes instead of the admin key.' },
      },
      schemas: components,
      responses: {
        BadRequest: errorResponse(STATUS_TEXT[400]!),
        Unauthorized: errorResponse(STATUS_TEXT[401]!),
        Forbidden: errorResponse(STATUS_TEXT[403]!),
        TooManyRequests: errorResponse(STATUS_TEXT[429]!, { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } }),
        Error: errorResponse('Any other error: status and meaning as in the error table.'),
      },
    },
  }
}
