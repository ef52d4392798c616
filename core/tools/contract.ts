// The plugin contract: the one module a tool plugin imports from the kernel.
// A plugin *declares* itself with defineTool(); the kernel turns the
// declaration into a REST key, agent tool(s), jobs, a manifest entry and an
// OpenAPI schema. See core/tools/README.md. The parts live in contract/:
// declaration.ts (what a plugin declares), context.ts (what a run gets),
// outcomes.ts (the errors a run ends in and what each means for the refund),
// schema-helpers.ts (Nullable, Defaulted, RunInput), list-input.ts (one
// value or a list, and what an item's failure does) and programs.ts (the
// programs a tool runs through ctx.exec, as profiles). Kernel modules import
// those parts directly; this barrel is for plugins.
export { Type } from 'typebox'
export type { Static, TSchema } from 'typebox'
export type { Logger } from 'pino'
/** Bounded parallelism (the kernel's own): `new Semaphore(n).run(task)`. */
export { Semaphore } from '../semaphore.ts'

export * from './contract/declaration.ts'
export * from './contract/context.ts'
export * from './contract/outcomes.ts'
export * from './contract/schema-helpers.ts'
export * from './contract/list-input.ts'
export * from './contract/programs.ts'

// What plugins share beyond this contract (page scanners, sitemaps, domains,
// JSON readers) is the plugin library (the `lib` folder beside the plugins; see
// its README): plugin code the kernel never imports.
