// What every view gets: the signed-in account, the tool list, navigation,
// and a place to register what to stop when the view is left (sockets).
import type { Me, ToolInfo } from './api.ts'

export interface Dashboard {
  me: Me
  /** Re-reads `me` (usage after a run, the tier after a claim). */
  refreshMe (): Promise<Me>
  /** The enabled tools (read once). */
  tools (): Promise<ToolInfo[]>
  /**
   * A secret to show once, set by the action that created it (signup, a new
   * key, a new token) and cleared when shown: it is never kept anywhere else.
   */
  takeFreshSecret (): { label: string, value: string } | null
  giveFreshSecret (label: string, value: string): void
  /** Navigates to a view: '#playground', '#results/<id>'. */
  go (hash: string): void
  /** Called when the view is left. */
  onLeave (stop: () => void): void
  signOut (): void
}

/** A view of the hash `#<name>/<a>/<b>?<query>`: `path` is `[name, a, b]` (the view's own name first). */
export type View = (dashboard: Dashboard, main: HTMLElement, params: { path: string[], query: URLSearchParams }) => Promise<void>
