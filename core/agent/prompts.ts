// Workflow prompts (MCP prompts/list, prompts/get, the guide's Prompts section)
// are declared by the plugins that own them. The kernel only gathers them and
// keeps those whose tools are all enabled here: a workflow that names a tool
// this server cannot run is not offered at all.
import { ConfigError } from '../config.ts'
import type { WorkflowPrompt } from '../tools/contract.ts'
import type { ToolRegistry } from '../tools/registry.ts'

export type { WorkflowPrompt } from '../tools/contract.ts'

/** The enabled plugins' prompts whose every tool is an enabled agent tool; boot fails on a duplicate name. */
export function offeredPrompts (registry: ToolRegistry, isEnabledAgentTool: (name: string) => boolean): WorkflowPrompt[] {
  const prompts: WorkflowPrompt[] = []
  const names = new Set<string>()
  for (const tool of registry.enabled()) {
    for (const prompt of tool.declaration.prompts ?? []) {
      if (names.has(prompt.name)) throw new ConfigError(`workflow prompt "${prompt.name}" is declared twice (plugin of "${tool.declaration.key}")`)
      names.add(prompt.name)
      if (prompt.tools.every(isEnabledAgentTool)) prompts.push(prompt)
    }
  }
  return prompts
}
