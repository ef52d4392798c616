// find_tool measured: the share of plain-English tasks (find-tool-tasks.ts)
// whose expected agent tool comes first (top-1) and among the first three
// (top-3), on the real catalogue of tools.config.json. Prints the figures and
// every miss; fails below the bar (issue 12 item 7).
import t from 'tap'
import { resolve } from 'node:path'
import { loadConfig } from '../../core/config.ts'
import { ToolRegistry } from '../../core/tools/registry.ts'
import { ToolFinder } from '../../core/agent/tool-finder.ts'
import { HELD_OUT_TASKS, TUNING_TASKS, type FindToolTask } from './find-tool-tasks.ts'

const TOP1_BAR = 0.90
const TOP3_BAR = 0.98
const MIN_TASKS = 60
const MIN_PHRASINGS_PER_TOOL = 3

const config = loadConfig({ DATA_DIR: '/tmp/unused', SECRET_KEY: 'test-secret-key-0123456789', TOOLS_CONFIG: resolve('tools.config.json') })
const registry = await ToolRegistry.load(config.tools, resolve('.'))
const agentTools = registry.listAgentTools()
const finder = new ToolFinder(agentTools)
const ALL_TASKS = [...TUNING_TASKS, ...HELD_OUT_TASKS]

interface Score { top1: number, top3: number, misses: string[] }

function score (tasks: FindToolTask[]): Score {
  let top1 = 0
  let top3 = 0
  const misses: string[] = []
  for (const { task, expected } of tasks) {
    const ranked = finder.rank(task, 3)
    const names = ranked.map(m => m.tool.name)
    if (names[0] === expected) top1++
    if (names.includes(expected)) top3++
    if (names[0] !== expected) {
      const place = names.includes(expected) ? `#${names.indexOf(expected) + 1}` : 'not in top 3'
      misses.push(`"${task}": want ${expected} (${place}), got ${ranked.map(m => `${m.tool.name} ${m.score}`).join(', ') || 'nothing'}`)
    }
  }
  return { top1: top1 / tasks.length, top3: top3 / tasks.length, misses }
}

const percent = (x: number) => `${(x * 100).toFixed(1)}%`

t.test('the task set covers every enabled agent tool with several phrasings', async t => {
  t.ok(ALL_TASKS.length >= MIN_TASKS, `${ALL_TASKS.length} tasks (at least ${MIN_TASKS})`)
  const names = new Set(agentTools.map(a => a.name))
  for (const { task, expected } of ALL_TASKS) t.ok(names.has(expected), `"${task}" expects an enabled agent tool (${expected})`)
  for (const name of names) {
    const phrasings = ALL_TASKS.filter(x => x.expected === name).length
    t.ok(phrasings >= MIN_PHRASINGS_PER_TOOL, `${name}: ${phrasings} phrasings (at least ${MIN_PHRASINGS_PER_TOOL})`)
  }
  t.equal(new Set(ALL_TASKS.map(x => x.task.toLowerCase())).size, ALL_TASKS.length, 'no task is listed twice')
})

t.test(`top-1 accuracy ≥ ${percent(TOP1_BAR)} and top-3 ≥ ${percent(TOP3_BAR)} over the task set`, async t => {
  const tuning = score(TUNING_TASKS)
  const heldOut = score(HELD_OUT_TASKS)
  const all = score(ALL_TASKS)
  t.comment(`find_tool on ${agentTools.length} agent tools:`)
  t.comment(`  tuning set   (${TUNING_TASKS.length} tasks): top-1 ${percent(tuning.top1)}, top-3 ${percent(tuning.top3)}`)
  t.comment(`  held-out set (${HELD_OUT_TASKS.length} tasks): top-1 ${percent(heldOut.top1)}, top-3 ${percent(heldOut.top3)}`)
  t.comment(`  all          (${ALL_TASKS.length} tasks): top-1 ${percent(all.top1)}, top-3 ${percent(all.top3)}`)
  for (const miss of all.misses) t.comment(`  miss: ${miss}`)
  t.ok(all.top1 >= TOP1_BAR, `top-1 ${percent(all.top1)} ≥ ${percent(TOP1_BAR)}`)
  t.ok(all.top3 >= TOP3_BAR, `top-3 ${percent(all.top3)} ≥ ${percent(TOP3_BAR)}`)
})
