// GET /api/tool-run/<job_id>/ws: live job progress over a WebSocket.
// Auth: the x-api-key header, or a first message {"type":"auth","api_key":"…"}.
// Messages: {type:'progress', job_id, status, records, stage} on each change,
// then one {type:'done'|'error', job: <status record>}, then the server closes.
// A finished job answers with the final message at once. A plain GET (no
// Upgrade) answers 426 {detail}: the route serves nothing over HTTP.
import { routeDefaults } from '../route-defaults.ts'
import type { FastifyInstance } from 'fastify'
import type { WebSocket } from 'ws'
import { authorizeRoute, requireAccount } from '../auth/guards.ts'
import { isAppError, upgradeRequired } from '../errors.ts'
import type { Principal } from '../auth/principal.ts'
import type { JobEvent } from '../jobs/job-events.ts'
import type { JobStatusRecord } from '../jobs/job-view.ts'

const AUTH_WAIT_MS = 10_000

export default async function progressSocketRoutes (app: FastifyInstance): Promise<void> {
  routeDefaults(app, { tag: 'Jobs', auth: 'account' })
  const { keys, jobs, events, config } = app.services
  const authSettings = { adminConfigured: config.adminApiKey !== null, blogApiKey: config.blogApiKey }

  // `wsHandler` + `handler` rather than `websocket: true`, whose HTTP fallback is a bare 404 without {detail}.
  app.route<{ Params: { id: string } }>({
    method: 'GET',
    url: '/api/tool-run/:id/ws',
    // The key may come as the first message: the socket enforces the class (account) itself, closing with 4401.
    config: { auth: 'account', authAfterUpgrade: true },
    handler: async () => { throw upgradeRequired('This endpoint is a WebSocket: connect with an Upgrade: websocket request (ws:// or wss://), or poll GET /api/tool-run/<id>/status.') },
    wsHandler: (socket: WebSocket, req) => {
      const jobId = req.params.id
      const send = (message: unknown) => { if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message)) }
      const fail = (code: number, detail: string) => { send({ type: 'error', detail }); socket.close(code, detail.slice(0, 120)) }

      const follow = async (principal: Principal) => {
        let caller
        try {
          authorizeRoute(principal, req.routeOptions.config, authSettings)
          caller = requireAccount(principal, { scoped: true })
        } catch (err) { return fail(4401, isAppError(err) ? err.detail : 'unauthorised') }
        // Subscribe (and wait until the subscription is live: with Redis it is
        // acknowledged by the server) before reading the status, so the final
        // event cannot slip between the two.
        const buffered: JobEvent[] = []
        let live = false
        let finished = false
        const finish = (event: Extract<JobEvent, { job: unknown }>) => {
          if (finished) return
          finished = true
          subscription.close()
          send(event)
          socket.close(1000, event.type)
        }
        const finalOf = (status: JobStatusRecord) => ({ type: status.status === 'done' ? 'done' as const : 'error' as const, job: status })
        // Events may have been lost while Redis was away: the stored status says whether the job ended meanwhile.
        const recheck = () => {
          if (!live || finished) return
          jobs.status(caller, jobId).then(status => { if (status.status !== 'running') finish(finalOf(status)) }, () => {})
        }
        const subscription = events.subscribe(jobId, (event) => {
          if (finished) return
          if (!live) { buffered.push(event); return }
          if (event.type === 'progress') send(event)
          else finish(event)
        }, { onResume: recheck })
        socket.on('close', () => subscription.close())
        await subscription.ready
        let status
        try {
          status = await jobs.status(caller, jobId)
        } catch (err) {
          subscription.close()
          return fail(4404, isAppError(err) ? err.detail : 'not found')
        }
        if (status.status !== 'running') return finish(finalOf(status))
        send({ type: 'progress', job_id: jobId, status: status.status, records: status.records, stage: status.stage })
        live = true
        for (const event of buffered) {
          if (event.type === 'progress') send(event)
          else return finish(event)
        }
      }

      if (req.principal.kind !== 'none') {
        void follow(req.principal)
        return
      }
      const timer = setTimeout(() => fail(4401, 'Send {"type":"auth","api_key":"…"} first, or the x-api-key header.'), AUTH_WAIT_MS)
      socket.once('message', (data) => {
        clearTimeout(timer)
        let message: { type?: string, api_key?: string }
        try { message = JSON.parse(data.toString()) } catch { return fail(4400, 'The first message must be JSON: {"type":"auth","api_key":"…"}.') }
        if (message.type !== 'auth' || typeof message.api_key !== 'string') return fail(4401, 'The first message must be {"type":"auth","api_key":"…"}.')
        keys.resolve(message.api_key).then(follow, () => fail(1011, 'Authentication failed; retry.'))
      })
      socket.on('close', () => clearTimeout(timer))
    },
  })
}
