// What every media tool's declaration shares (the dl_* and covers factories
// differ only in their input, row, description and run): the spec's words, the
// yt-dlp settings, the platform health as state with its endpoint and
// dashboard view, the `url` list, the agent's `limit`.
import { defineTool, type RunInput, type Static, type TSchema, type ToolExample } from '../../../core/tools/contract.ts'
import { MEDIA_TOOL_CAPABILITY } from './capability.ts'
import type { PlatformHealth } from './platform-health.ts'
import type { Platform } from './platforms.ts'
import { YtdlpToolSettingsSchema } from './settings.ts'
import { LINKS_LIST, type MediaToolContext } from './ytdlp-info.ts'

/** A media tool's own words: each plugin's index.ts hands one to its family's factory. */
export interface MediaToolSpec {
  key: string
  agentName: string
  title: string
  platform: Platform
  /** What the tool reads, for the description ("a video, a Short, a playlist or a channel"). */
  what: string
  /** Agent-facing text after the shared part: platform notes, an example. */
  notes: string
  examples: Array<ToolExample<Record<string, unknown>>>
  keywords: string[]
  /** find_tool's phrases that choose this tool over its neighbours, and those that mean a neighbour fits (contract.ts). */
  cues?: string[]
  notFor?: string[]
}

/** What a family of media tools gives each member: its input, row, description and run. */
export interface MediaToolKind<Input extends TSchema, Row extends TSchema> {
  input: Input
  row: Row
  /** The row's identity and the fields a monitor watches (contract.ts). */
  rowKey: string[]
  watch: string[]
  description: string
  run (ctx: MediaToolContext<RunInput<Input>, Static<Row>>): Promise<void>
}

export function defineMediaTool<Input extends TSchema, Row extends TSchema> (spec: MediaToolSpec, kind: MediaToolKind<Input, Row>) {
  return defineTool<Input, Row, typeof YtdlpToolSettingsSchema, PlatformHealth>({
    key: spec.key,
    agentName: spec.agentName,
    title: spec.title,
    description: kind.description,
    input: kind.input,
    row: kind.row,
    rowKey: kind.rowKey,
    watch: kind.watch,
    renames: { limit: 'max_results' },
    examples: spec.examples as Array<ToolExample<RunInput<Input>>>,
    keywords: spec.keywords,
    cues: spec.cues,
    notFor: spec.notFor,
    settings: YtdlpToolSettingsSchema,
    ...MEDIA_TOOL_CAPABILITY,
    list: LINKS_LIST,
    run: async (ctx) => kind.run(ctx),
  })
}
