// The view kit: what a tool's dashboard view (a plugin's `dashboard/` folder,
// declared in its `dashboardViews`) may import from the dashboard, and nothing
// else of it: the calls with the key, a tool's status record, the text-only
// element builder, the view type. The one exception to "a plugin imports only the contract and the plugin
// library" (.dependency-cruiser.cjs, test/kernel/plugin-boundary.test.ts), kept
// small so the dashboard's own files stay free to change.
export { ApiError, call } from './api.ts'
export { h, tableWrap } from './dom.ts'
export { statusRecord } from './status-record.ts'
export type { Dashboard, View } from './context.ts'
