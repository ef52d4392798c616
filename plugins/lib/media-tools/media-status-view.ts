// The media platforms view of the dashboard (#media): GET /api/media/status
// drawn as a table. Every media tool declares it, like the endpoint, and the
// dashboard draws it once, so it is there whichever of them is enabled.
import type { DashboardView } from '../../../core/tools/contract.ts'

export const mediaStatusView: DashboardView = {
  name: 'media',
  title: 'Media platforms',
  module: new URL('./dashboard/media-status.ts', import.meta.url),
}
