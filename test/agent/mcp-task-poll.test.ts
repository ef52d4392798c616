// The tasks/get poll answered without a per-request SDK Server
// (core/agent/task-poll.ts) gives the SDK's own answer to the same request,
// a completed task's tool result included, and declines (undefined: the SDK
// answers) everything it does not serve: another caller's or an unknown task,
// a request without the tasks extension, headers that disagree with the body,
// other methods and params.
import t from 'tap'
import { createMcpHandler } from '@modelcontextprotocol/server'
import { AppError } from '../../core/errors.ts'
import type { JobService } from '../../core/jobs/job-service.ts'
import type { JobStatusRecord } from '../../core/jobs/job-view.ts'
import { createMcpServer, serverIdentity, type McpCaller, type McpServerDeps } from '../../core/agent/mcp-server.ts'
import { answerTaskPoll, type TaskPollHeaders } from '../../core/agent/task-poll.ts'
import { modernMcpRequest } from '../helpers/mcp-request.ts'

const TASK = '49bd590b-3e9b-4ecc-bc9e-e927c8524afa'
const record = (status: JobStatusRecord['status'], extra: Partial<JobStatusRecord> = {}): JobStatusRecord => ({
  job_id: TASK, tool: 'counter', status, records: 2, stage: 'running', has_results: true, done: status !== 'running', error: null, warning: null,
  blocked: false, refunded: false, results_url: `/api/tool-run/${TASK}/results`, status_url: `/api/tool-run/${TASK}/status`,
  created_at: '2026-11-28T18:46:09.275Z', started_at: '2026-11-28T18:46:09.424Z', finished_at: null, expires_at: null, summary: null,
  ...extra,
} as JobStatusRecord)

/** A job service that knows one job, of account `a` only (another account's id is a 404, as JobService.status answers). */
function jobsWith (job: JobStatusRecord): JobService {
  return {
    status: async (caller: McpCaller['caller'], id: string) => {
      if (caller.account.id !== 'a' || id !== job.job_id) throw new AppError(404, 'Job not found.')
      return job
    },
  } as unknown as JobService
}
/** The ended job's tool result, as AgentToolCalls.taskResult gives it (tested with the agent endpoint's tool calls). */
const calls = {
  taskResult: async (job: JobStatusRecord) => ({
    content: [{ type: 'text', text: `counter finished job ${job.job_id}: ${job.records} rows.` }, { type: 'text', text: '[{"n":1},{"n":2}]' }],
    structuredContent: { job_id: job.job_id, status: job.status, records: job.records, results: [{ n: 1 }, { n: 2 }] },
  }),
} as unknown as McpServerDeps['calls']
const deps = (jobs: JobService) => ({ jobs, calls })
const who = (account: string): McpCaller => ({ caller: { account: { id: account } } as McpCaller['caller'], log: { debug () {} } as unknown as McpCaller['log'], origin: 'http://127.0.0.1' })
const info = { name: 'extraction-jobs', version: '1.0.0' }

/** The SDK's answer to the same request (the path every other request takes). */
async function sdkAnswer (jobs: JobService, caller: McpCaller, headers: Record<string, string>, body: unknown): Promise<unknown> {
  const sdkDeps = { info, jobs, catalog: { jobTools: () => [] }, calls, guide: '', instructions: '' } as unknown as McpServerDeps
  const handler = createMcpHandler(() => createMcpServer(sdkDeps, caller, 'modern'), { legacy: 'reject' })
  const request = new Request('http://localhost/mcp', { method: 'POST', headers: Object.fromEntries(Object.entries(headers).filter(([k]) => k !== 'authorization')) })
  const response = await handler.fetch(request, { parsedBody: body })
  return response.json()
}

const pollHeaders = (headers: Record<string, string>): TaskPollHeaders => ({
  contentType: headers['content-type'], protocolVersion: headers['mcp-protocol-version'], method: headers['mcp-method'], name: headers['mcp-name'],
})

t.test('a working, cancelled or completed task: the same answer as the SDK gives', async t => {
  const ended = { finished_at: '2026-11-28T18:47:00.000Z', expires_at: '2026-12-05T18:47:00.000Z' }
  for (const job of [record('running'), record('cancelled', { error: 'cancelled', ...ended }), record('done', ended), record('error', { error: 'upstream failed', ...ended })]) {
    const jobs = jobsWith(job)
    const { headers, body } = modernMcpRequest('k', 'tasks/get', { taskId: TASK })
    const fast = await answerTaskPoll(deps(jobs), serverIdentity(info), who('a'), pollHeaders(headers), body)
    t.ok(fast, `${job.status}: answered`)
    t.same(JSON.parse(fast!), await sdkAnswer(jobs, who('a'), headers, body), `${job.status}: as the SDK answers`)
    if (job.status !== 'running' && job.status !== 'cancelled') t.match(JSON.parse(fast!), { result: { status: 'completed', result: { structuredContent: { records: 2 } } } }, `${job.status}: the tool result inline`)
  }
})

t.test('what it declines goes to the SDK', async t => {
  const running = jobsWith(record('running'))
  const { headers, body } = modernMcpRequest('k', 'tasks/get', { taskId: TASK })
  const declined = async (what: string, jobs: JobService, caller: McpCaller, h: Record<string, string>, b: unknown) =>
    t.equal(await answerTaskPoll(deps(jobs), serverIdentity(info), caller, pollHeaders(h), b), undefined, what)

  await declined('another account\'s task', running, who('b'), headers, body)
  t.match(await sdkAnswer(running, who('b'), headers, body), { error: { code: -32602 } }, 'which the SDK path calls unknown')
  await declined('an unknown task', running, who('a'), { ...headers, 'mcp-name': 'nope' }, modernMcpRequest('k', 'tasks/get', { taskId: 'nope' }).body)
  const plain = structuredClone(body) as { params: { _meta: Record<string, unknown> } }
  plain.params._meta['io.modelcontextprotocol/clientCapabilities'] = {}
  await declined('no tasks extension', running, who('a'), headers, plain)
  t.match(await sdkAnswer(running, who('a'), headers, plain), { error: { code: -32021 } }, 'which the SDK path refuses')
  await declined('an Mcp-Name that is not the task id', running, who('a'), { ...headers, 'mcp-name': 'other' }, body)
  await declined('no Mcp-Name', running, who('a'), Object.fromEntries(Object.entries(headers).filter(([k]) => k !== 'mcp-name')), body)
  await declined('an Mcp-Method of another method', running, who('a'), { ...headers, 'mcp-method': 'tasks/cancel' }, body)
  await declined('another revision header', running, who('a'), { ...headers, 'mcp-protocol-version': '2025-11-25' }, body)
  await declined('a body that is not JSON', running, who('a'), { ...headers, 'content-type': 'text/plain' }, body)
  const extra = structuredClone(body) as { params: Record<string, unknown> }
  extra.params.inputResponses = {}
  await declined('another param', running, who('a'), headers, extra)
  const cancel = modernMcpRequest('k', 'tasks/cancel', { taskId: TASK })
  await declined('tasks/cancel', running, who('a'), cancel.headers, cancel.body)
  const long = 'x'.repeat(65)
  const tooLong = modernMcpRequest('k', 'tasks/get', { taskId: long })
  await declined('a task id longer than the schema allows', running, who('a'), tooLong.headers, tooLong.body)
  await declined('a batch', running, who('a'), headers, [body])
})
