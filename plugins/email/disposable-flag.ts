// The `disposable` flag on a verification row: is the domain (or a parent of
// it) on the maintained list? The list lives in the plugin library (plugins/lib) (shared with the
// `disposable` tool, which adds MX matching and operator allow/deny lists).
export { disposableListMatch as disposableMatch } from '../lib/disposable-list.ts'
