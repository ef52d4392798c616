// What every tool that runs yt-dlp declares alike (the dl_* and covers kits,
// ig_captions, video_frames): the media programs, and its links counted in the
// platforms' health (the state, GET /api/media/status, the dashboard view), so
// a wall met by one media tool shows for all of them.
import type { ToolStateKit } from '../../../core/tools/contract.ts'
import { MEDIA_PROGRAMS } from '../media/programs.ts'
import { mediaStatusView } from './media-status-view.ts'
import { createPlatformHealth, mediaStatusEndpoint } from './platform-health.ts'

/** Spread into a media tool's declaration, beside its own settings. */
export const MEDIA_TOOL_CAPABILITY = {
  programs: MEDIA_PROGRAMS,
  createState: (_settings: unknown, kit: ToolStateKit) => createPlatformHealth(kit),
  endpoints: [mediaStatusEndpoint],
  dashboardViews: [mediaStatusView],
}
