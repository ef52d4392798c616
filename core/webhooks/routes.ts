// Webhook endpoints: a job's deliveries and their redelivery (whoever sees the
// job: core/auth/guards.ts maySeeJob), and the account's default webhook
// (personal key only: it holds a signing secret).
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { requireAccount } from '../auth/guards.ts'
import { notFound } from '../errors.ts'
import { routeDefaults } from '../route-defaults.ts'
import { JobParams } from '../route-params.ts'
import { AccountWebhookAnswer, AccountWebhookBody, AccountWebhookCreated, AccountWebhookDeleted, DeliverySchema, JobDeliveriesAnswer, RedeliverBody } from './schemas.ts'

const NO_DEFAULT = 'No default webhook is set for this account (PUT /api/account/webhook sets one).'

export default async function webhookRoutes (fastify: FastifyInstance): Promise<void> {
  routeDefaults(fastify, { tag: 'Webhooks', auth: 'account' })
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const { jobs, webhooks, accountWebhooks } = app.services

  app.get('/api/jobs/:id/webhooks', { schema: { params: JobParams }, config: { auth: 'account', responses: { 200: JobDeliveriesAnswer } } }, async (req) => {
    const job = await jobs.find(requireAccount(req.principal, { scoped: true }), req.params.id)
    return { job_id: job.id, deliveries: await webhooks.listForJob(job.id) }
  })

  app.post('/api/jobs/:id/webhooks/redeliver', { schema: { params: JobParams, body: RedeliverBody }, config: { auth: 'account', responses: { 202: DeliverySchema } } }, async (req, reply) => {
    const caller = requireAccount(req.principal, { scoped: true })
    const job = await jobs.find(caller, req.params.id)
    const delivery = await webhooks.redeliver(job, req.body?.delivery_id, () => jobs.status(caller, job.id))
    return reply.code(202).send(delivery)
  })

  app.put('/api/account/webhook', { schema: { body: AccountWebhookBody }, config: { auth: 'personal', responses: { 200: AccountWebhookCreated } } }, async (req) => {
    const caller = requireAccount(req.principal, { scoped: false })
    return accountWebhooks.set(caller.account.id, req.body)
  })

  app.get('/api/account/webhook', { config: { auth: 'personal', responses: { 200: AccountWebhookAnswer } } }, async (req) => {
    const caller = requireAccount(req.principal, { scoped: false })
    const webhook = await accountWebhooks.get(caller.account.id)
    if (!webhook) throw notFound(NO_DEFAULT)
    return webhook
  })

  app.delete('/api/account/webhook', { config: { auth: 'personal', responses: { 200: AccountWebhookDeleted } } }, async (req) => {
    const caller = requireAccount(req.principal, { scoped: false })
    if (!(await accountWebhooks.remove(caller.account.id))) throw notFound(NO_DEFAULT)
    return { deleted: true as const }
  })
}
