// A tool's upstream URLs and credentials, read from tools.config.json and the
// environment: the same reading for a job's run and for the tool's endpoints.
import type { AppConfig } from '../config.ts'
import { MissingCredentialError, type UpstreamConfig } from './contract.ts'
import type { LoadedTool } from './registry.ts'

/** Upstream URLs and credentials (trimmed; blank = unset) of one tool. */
export function upstreamConfig (tool: LoadedTool, config: AppConfig): UpstreamConfig {
  const names = tool.config.credentials ?? {}
  const credential = (name: string) => {
    const variable = names[name]
    const value = variable ? config.env[variable] : undefined
    return value && value.trim() !== '' ? value.trim() : undefined
  }
  return {
    urls: tool.config.upstream ?? {},
    credentialNames: names,
    credential,
    requireCredential: (name: string, what?: string) => {
      const value = credential(name)
      if (value === undefined) throw new MissingCredentialError(names[name] ?? name.toUpperCase(), what ?? `The ${tool.declaration.title} tool`)
      return value
    },
  }
}
