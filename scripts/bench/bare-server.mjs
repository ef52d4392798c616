// The baseline of the HTTP benchmarks: a bare fastify server in its own
// process (plain Node, no TypeScript loader, no logger) whose GET /bare
// answers BARE_BODY (JSON text) as that object, on 127.0.0.1:BARE_PORT.
// Started by processes.ts (startBare): the baseline of me.ts and poll.ts and
// the start-up floor of startup.ts; SIGTERM ends it.
//
// BARE_LAYERS (me-floor.ts) adds, one word each, the per-request machinery
// every route of the service carries before any work of its own, so that
// the bare route plus these layers is a floor the service cannot go under:
// - `log`: pino writing to stdout as the service does (asynchronous, 4 KB
//   batches) and one access line per answer with the service's fields;
// - `hooks`: the shapes of the service's hooks, doing nothing: a callback
//   onRequest (the Host check), an async onRequest awaiting a resolved value
//   (the key check), a callback preValidation (the body-depth check) and a
//   callback onSend (the page headers' content-type test);
// - `ws`: @fastify/websocket registered (its onRequest/onResponse hooks wrap every route);
// - `schema`: a response schema, so the answer goes through fast-json-stringify.
import Fastify from 'fastify'

const body = JSON.parse(process.env.BARE_BODY ?? '{}')
const layers = new Set((process.env.BARE_LAYERS ?? '').split(/[\s,]+/).filter(Boolean))
let logger
if (layers.has('log')) {
  const { default: pino } = await import('pino')
  logger = pino({ level: 'info' }, pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 100, maxLength: 16 * 1024 * 1024 }))
}
const app = Fastify(logger ? { loggerInstance: logger, disableRequestLogging: true } : { logger: false })
if (layers.has('ws')) await app.register((await import('@fastify/websocket')).default)
if (layers.has('hooks')) {
  app.addHook('onRequest', (request, _reply, done) => done(request.headers.host === undefined ? new Error('no Host') : undefined))
  app.addHook('onRequest', async (request) => { request.principal = await Promise.resolve({ kind: 'personal' }) })
  app.addHook('preValidation', (request, _reply, done) => done())
  app.addHook('onSend', (_request, reply, payload, done) => { reply.getHeader('content-type'); done(null, payload) })
}
if (logger) {
  const plain = logger.child({}, { redact: [] })
  app.addHook('onResponse', (request, reply, done) => {
    plain.info({ reqId: request.id, req: { method: request.method, url: request.url, remoteAddress: request.ip }, res: { statusCode: reply.statusCode }, responseTime: reply.elapsedTime }, 'request completed')
    done()
  })
}
const schema = layers.has('schema') ? { response: { 200: { type: 'object', additionalProperties: true, properties: {} } } } : undefined
app.get('/bare', { schema }, async () => body)
await app.listen({ host: '127.0.0.1', port: Number(process.env.BARE_PORT ?? 0) })
process.on('SIGTERM', () => { app.close().then(() => process.exit(0), () => process.exit(1)) })
