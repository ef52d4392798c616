// Types of scripts/test-files.mjs (plain JavaScript: scripts/test.mjs runs without a TypeScript loader).
export declare const GROUPS_LIST: string
export declare function groupFile (name: string): string
export declare function readGroups (root: string): Record<string, string[]>
export declare function allTestFiles (root: string): string[]
export declare function defaultTestFiles (root: string, skip?: Set<string>): string[]
export declare function databaseFreeFiles (root: string, files?: string[]): Promise<Set<string>>
export declare function fileArguments (args: string[]): string[]
export declare function namesDatabase (path: string, text: string): boolean
