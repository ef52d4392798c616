// The outcomes a run may end in: the error classes a plugin throws (or the
// kernel's guards throw for it), and what each means for the job's refund,
// its `blocked` flag and the operator. The kernel reads the fields of
// JobOutcomeError, never a class name. See core/tools/README.md, Outcomes.

/**
 * An error that ends a job in a known way. The kernel reads these fields, never
 * the class name or the text, to write the job's outcome; a plugin may read them
 * too (a failure that needs the operator will repeat for every item of a run).
 */
export abstract class JobOutcomeError extends Error {
  /** The call is given back: the caller was not at fault. */
  abstract readonly refund: boolean
  /** The source refused: the job reads `blocked: true`. */
  readonly blocked: boolean = false
  /** Every call fails the same way until the operator changes the server (a credential, a setting, a tool to enable). */
  readonly needsOperator: boolean = false
  /** The text quotes an upstream's request: the kernel cuts its URLs to origin + path, since queries carry keys and the caller's search. */
  readonly quotesUpstream: boolean = false
  /** What the job's `error` reads (scrubbed of credentials by the kernel). */
  get jobError (): string { return this.message }
}

/** Thrown by the guard: the target is private, loopback, link-local or metadata. Not refunded: the caller chose the target. */
export class BlockedTargetError extends JobOutcomeError {
  readonly refund = false
  constructor (readonly target: string, readonly reason: string) {
    super(`Refused to connect to ${target}: ${reason}. Set ALLOW_PRIVATE_TARGETS=1 to allow private targets.`)
    this.name = 'BlockedTargetError'
  }
}

/** The source refused (403/429, captcha, login or consent wall): job ends blocked, refunded. */
export class ToolBlockedError extends JobOutcomeError {
  readonly refund = true
  override readonly blocked = true
  override readonly quotesUpstream = true
  constructor (reason: string) { super(reason); this.name = 'ToolBlockedError' }
  override get jobError (): string { return `The source refused the request: ${this.message}` }
}

/** The upstream failed (5xx, bad answer, unreachable): job ends in error, refunded. */
export class UpstreamError extends JobOutcomeError {
  readonly refund = true
  override readonly quotesUpstream = true
  constructor (message: string, readonly status?: number) { super(message); this.name = 'UpstreamError' }
  override get jobError (): string { return `The upstream failed: ${this.message}` }
}

/** A credential the tool needs is not configured: job ends in error naming the variable, refunded. */
export class MissingCredentialError extends JobOutcomeError {
  readonly refund = true
  override readonly needsOperator = true
  constructor (readonly variable: string, what: string) {
    super(`${what} needs the environment variable ${variable}, which is not set on this server.`)
    this.name = 'MissingCredentialError'
  }
}

/**
 * The operator's tools.config.json is wrong for this tool in a way the boot
 * checks cannot say (the `settings` schema and `uses` are checked at boot), or
 * a tool it runs is not enabled: job ends in error naming it, refunded.
 */
export class ToolConfigError extends JobOutcomeError {
  readonly refund = true
  override readonly needsOperator = true
  constructor (message: string) { super(`Server configuration error: ${message}`); this.name = 'ToolConfigError' }
}

/** The caller's input cannot be served (e.g. a URL that is not a video): job ends in error, not refunded. */
export class InputError extends JobOutcomeError {
  readonly refund = false
  constructor (message: string) { super(message); this.name = 'InputError' }
}

/**
 * A file passed its tier's cap (`max_file_mb` for one file, `max_job_files_mb`
 * for all of a job's files; an upload is refused with 413 before the job
 * starts instead). The write stopped and its partial file is gone; files
 * stored before it stay. Not refunded, like InputError: the caller chose what
 * to fetch. A tool may catch it, `warn` and go on with smaller files.
 */
export class FileTooLargeError extends JobOutcomeError {
  readonly refund = false
  constructor (message: string, readonly limitBytes: number) { super(message); this.name = 'FileTooLargeError' }
}

/**
 * One page (or answer) could not be parsed: the parser threw, ran past
 * EXTRACT_TASK_TIMEOUT_MS, nested too deeply, or its worker ran out of memory.
 * Catch it and make it that row's or that page's error; one that escapes a run
 * ends the job like an UpstreamError (refunded), since the page was the upstream's.
 */
export class ExtractionError extends UpstreamError {
  constructor (message: string, readonly reason: 'failed' | 'timeout' | 'too-deep' | 'out-of-memory' | 'crashed') {
    super(message)
    this.name = 'ExtractionError'
  }
}

/**
 * A response body past MAX_RESPONSE_BYTES (or the caller's lower `maxBytes`):
 * `ctx.http`'s read and a crawler's page fail with it. A tool that can ask for
 * less (a smaller page of a paged API) catches it and does; one that escapes a
 * run ends the job like an UpstreamError (refunded).
 */
export class ResponseTooLargeError extends UpstreamError {
  constructor (message: string, readonly limitBytes: number, status?: number) {
    super(message, status)
    this.name = 'ResponseTooLargeError'
  }
}


/**
 * A DNS lookup answered no records: `code` says why (node's codes; `nxdomain`
 * and `noData` name the two that are answers, not failures). One that escapes
 * a run ends the job like an UpstreamError (refunded).
 */
export class DnsLookupError extends UpstreamError {
  constructor (readonly code: string, readonly domain: string, readonly rrtype: string) {
    super(`DNS ${rrtype} lookup for ${domain} failed (${code})`)
    this.name = 'DnsLookupError'
  }

  /** The name does not exist. */
  get nxdomain (): boolean { return this.code === 'ENOTFOUND' }
  /** The name exists but has no record of this type. */
  get noData (): boolean { return this.code === 'ENODATA' }
}
