// The baseline of the HTTP benchmarks: a bare fastify server in its own
// process (plain Node, no TypeScript loader, no logger) whose GET /bare
// answers BARE_BODY (JSON text) as that object, on 127.0.0.1:BARE_PORT.
// Started by processes.ts (startBare): the baseline of me.ts and poll.ts and
// the start-up floor of startup.ts; SIGTERM ends it.
import Fastify from 'fastify'

const body = JSON.parse(process.env.BARE_BODY ?? '{}')
const app = Fastify({ logger: false })
app.get('/bare', async () => body)
await app.listen({ host: '127.0.0.1', port: Number(process.env.BARE_PORT ?? 0) })
process.on('SIGTERM', () => { app.close().then(() => process.exit(0), () => process.exit(1)) })
