// What a tool declares about a program it runs through ctx.exec (a
// declaration's `programs`). The kernel owns the mechanism (spawning, the
// sandbox limits, the job's file budget, the environment, the egress proxy,
// scrubbing, the version cache, and enforcing the guard before every spawn);
// a profile says what is particular to one program: its binary, how it prints
// its version, which of its arguments open inputs and which are refused, what
// goes before the tool's arguments, and when the operator should update it.
// See core/exec/README.md.

/** The inputs a program may open, as the kernel checks them for one run. */
export interface MediaInputs {
  /** Whether this run has the network (`network: true`): only then may an http(s) URL be opened. */
  readonly network: boolean
  /**
   * Checks one input the program will open: an http(s) URL (a run without
   * `network: true` is the plugin's bug and throws), or a file inside the
   * job's own folders, returned as its real path. Anything else (another
   * scheme, `-`, a path elsewhere, a symlink out) throws InputError naming no path.
   */
  open (input: string): { url: string } | { path: string }
}

/** What a profile's `leadingArgs` may read for one run. */
export interface ProgramRunContext {
  /** The program's version as read once per process (null: unknown). */
  version: string | null
  /** An operator's environment variable, trimmed; undefined when unset or blank. */
  setting (name: string): string | undefined
  /** The binary another program resolves to on this server (e.g. the one a downloader should start), or null. */
  binaryOf (profile: ProgramProfile): string | null
}

/** What the version read found, as `GET /api/health` reports it. */
export interface ProgramVersion {
  /** What the program printed of its version, or null when it did not run. */
  version: string | null
  /** Programs whose version is a release date: that date, and whether it is older than `staleAfterDays`. */
  released?: string | null
  stale?: boolean | null
}

export interface ProgramProfile {
  /** What tools run it as (`ctx.exec.run(name, …)`), and the binary looked up on PATH when its setting is unset. */
  name: string
  /** The environment variable that names its binary: a name looked up on PATH, or an absolute path. */
  binarySetting: string
  version: {
    /** The arguments that make it print its version on its first line. */
    args: readonly string[]
    /** The version in that line; null: not recognised (the line itself is reported). */
    parse (firstLine: string): string | null
    /** The release date (YYYY-MM-DD) a version stands for, for programs that must be kept current; null: not a date. */
    releasedOn? (version: string): string | null
    /** With releasedOn: older than this many days is stale (reported, and a boot warning). */
    staleAfterDays?: number
    /** With staleAfterDays: what the boot warning adds (what breaks, where to read how to update). */
    staleWarning?: string
  }
  /**
   * The argument guard, run by the kernel before every spawn: checks each
   * input through `inputs.open` and returns the arguments the program gets
   * (the kernel's whitelists added), or throws: InputError for the caller's
   * input, a plain Error for an argument no tool should pass.
   */
  guard (args: readonly string[], inputs: MediaInputs): string[]
  /** Arguments put before the guarded ones on every run, after the guard (so a tool can never set them). */
  leadingArgs? (run: ProgramRunContext): string[]
  /**
   * A run without `network: true`: 'no-proxy' (default) gives it no proxy
   * variable; 'refusing-proxy' points the proxy variables at a proxy that
   * refuses everything, for a program that has no offline switch.
   */
  offline?: 'no-proxy' | 'refusing-proxy'
  /** Boot warnings once the version is read (e.g. a setting this version cannot take). */
  bootWarnings? (version: string, setting: (name: string) => string | undefined): string[]
}
