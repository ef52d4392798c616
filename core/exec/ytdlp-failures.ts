// What a failed yt-dlp run means for the job, from its stderr. Pure, so it is
// tested on real yt-dlp texts (test/exec/ytdlp-failures.test.ts), and exported
// to plugins through the contract.
//
// - the source refused us: a login, age or bot wall, a rate limit (429, "rate-limit
//   reached"), a geo block, an IP block → ToolBlockedError (blocked, refunded);
// - the caller's URL cannot be served: not a URL, no extractor for it, a private
//   video or account → InputError (not refunded);
// - anything else (the extractor broke, the video was removed or is "unavailable",
//   which YouTube also says to servers it is throttling, a network failure)
//   → UpstreamError (refunded).
import { InputError, ToolBlockedError, UpstreamError, type JobOutcomeError } from '../tools/contract.ts'

// Checked in this order: a private video also says "Sign in if you've been granted access".
const INPUT_PATTERNS: RegExp[] = [
  /\bunsupported url\b/i,
  /\bis not a valid url\b/i,
  /\bprivate video\b/i,
  /\bthis (video|account|profile|post) is private\b/i,
  /\bvideo is private\b/i,
]

const BLOCKED_PATTERNS: RegExp[] = [
  // geo blocks
  /not (made this video )?available in your (country|region)/i,
  /not available (from|in) your (location|country|region)/i,
  /\bgeo[- ]?(restricted|blocked|restriction)/i,
  /blocked (it )?in your country/i,
  /only available in certain countries/i,
  // rate limits
  /\bHTTP Error 429\b/i,
  /\btoo many requests\b/i,
  /\brate[- ]?limit/i,
  // login, age and bot walls
  /\bsign in to confirm\b/i,
  /\bconfirm your age\b/i,
  /\bage[- ]restricted\b/i,
  /\blogin required\b/i,
  /\b(you need|need) to log ?in\b/i,
  /\brequires? (a )?(login|authentication|an account)\b/i,
  /\bonly available for registered users\b/i,
  /\bcookies? (are|is) (needed|required)\b/i,
  /\byour ip address is blocked\b/i,
  /\bHTTP Error 403\b/i,
]

/** The last `ERROR:` line of yt-dlp's stderr (its verdict), else the last non-empty line. */
function verdictLine (stderr: string): string {
  const lines = stderr.split(/\r?\n/).map(l => l.trim()).filter(Boolean)
  const errors = lines.filter(l => /^ERROR:/.test(l))
  return errors.at(-1) ?? lines.at(-1) ?? ''
}

// Operator-facing advice yt-dlp appends (how to pass cookies, update, report a bug): not the caller's business.
const ADVICE = /(;\s*please report this issue|\.?\s*(Use|See|Also see|Confirm you are on)\b.*(--cookies|--username|--netrc|yt-dlp -U|github\.com\/yt-dlp|for how to|to provide account credentials|the appropriate issue template)).*$/i
// Absolute file paths (a scratch dir, the binary) never reach a client; URLs (after "scheme:" or "/") are kept.
const FILE_PATH = /(?<![\w:/.~-])\/(?:[\w.@+-]+\/)+[\w.@+-]*/g

/** The verdict as a caller may read it: no advice for the operator, no file path, no stack, bounded. */
export function ytdlpReason (stderr: string): string {
  let text = verdictLine(stderr).replace(/^ERROR:\s*/, '').replace(ADVICE, '').replace(FILE_PATH, '(file)').trim()
  text = text.replace(/\s+/g, ' ').replace(/[.;,\s]+$/, '')
  if (text.length > 300) text = `${text.slice(0, 297)}...`
  return text || 'yt-dlp failed without saying why'
}

/**
 * The outcome of a failed yt-dlp run from its stderr: throw what it returns.
 * `ytdlpFailure(result.stderr)` after a run whose `exitCode` is not 0.
 */
export function ytdlpFailure (stderr: string): JobOutcomeError {
  const verdict = verdictLine(stderr)
  const reason = ytdlpReason(stderr)
  if (INPUT_PATTERNS.some(p => p.test(verdict))) return new InputError(reason)
  if (BLOCKED_PATTERNS.some(p => p.test(verdict))) return new ToolBlockedError(reason)
  return new UpstreamError(reason)
}
