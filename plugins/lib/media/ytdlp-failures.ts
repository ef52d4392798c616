// What a failed yt-dlp run means for the job, from its stderr. Pure, so it is
// tested on real yt-dlp texts (test/plugins/media-lib/ytdlp-failures.test.ts).
// It lives with the media tools, not in the kernel, because it is knowledge of
// yt-dlp's and the platforms' wording; it imports only the contract's outcomes.
//
// - the source refused us: a login, age or bot wall, a rate limit (429, "rate-limit
//   reached"), a geo block, an IP block → ToolBlockedError (blocked, refunded);
//   `ytdlpRefusal` names which (the media tools' platform health shows it);
// - the caller's URL cannot be served: not a URL, no extractor for it, a private
//   video or account → InputError (not refunded);
// - anything else (the extractor broke, the video was removed or is "unavailable",
//   which YouTube also says to servers it is throttling, a network failure)
//   → UpstreamError (refunded).
import { InputError, ToolBlockedError, UpstreamError, type JobOutcomeError } from '../../../core/tools/contract.ts'

// Checked in this order: a private video also says "Sign in if you've been granted access".
const INPUT_PATTERNS: RegExp[] = [
  /\bunsupported url\b/i,
  /\bis not a valid url\b/i,
  /\bprivate video\b/i,
  /\bthis (video|account|profile|post) is private\b/i,
  /\bvideo is private\b/i,
]

/** Which wall a refusal is: what the operator does about it differs (a fresh cookies file, waiting, a proxy). */
export type YtdlpRefusalKind = 'login_required' | 'rate_limited' | 'bot_check' | 'geo_block' | 'other'

// Refusals, each with its kind; the first pattern that matches the verdict names the kind.
const REFUSAL_PATTERNS: Array<[YtdlpRefusalKind, RegExp]> = [
  // Instagram says both at once; a logged-in session (a fresh cookies file) is what ends it.
  ['login_required', /rate-limit reached or login required/i],
  // bot walls (YouTube's "Sign in to confirm you're not a bot", with either apostrophe)
  ['bot_check', /\bconfirm you(?:['’]re| are) not a (ro)?bot\b/i],
  // geo and IP blocks
  ['geo_block', /not (made this video )?available in your (country|region)/i],
  ['geo_block', /not available (from|in) your (location|country|region)/i],
  ['geo_block', /\bgeo[- ]?(restricted|blocked|restriction)/i],
  ['geo_block', /blocked (it )?in your country/i],
  ['geo_block', /only available in certain countries/i],
  ['geo_block', /\byour ip address is blocked\b/i],
  // rate limits
  ['rate_limited', /\bHTTP Error 429\b/i],
  ['rate_limited', /\btoo many requests\b/i],
  ['rate_limited', /\brate[- ]?limit/i],
  // login and age walls (an age gate wants a signed-in adult account)
  ['login_required', /\bsign in to confirm\b/i],
  ['login_required', /\bconfirm your age\b/i],
  ['login_required', /\bage[- ]restricted\b/i],
  ['login_required', /\blogin required\b/i],
  ['login_required', /\b(you need|need) to log ?in\b/i],
  ['login_required', /\brequires? (a )?(login|authentication|an account)\b/i],
  ['login_required', /\bonly available for registered users\b/i],
  ['login_required', /\bcookies? (are|is) (needed|required)\b/i],
  // a bare refusal: the site said no without saying why
  ['other', /\bHTTP Error 403\b/i],
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
  if (refusalKindOf(verdict)) return new ToolBlockedError(reason)
  return new UpstreamError(reason)
}

function refusalKindOf (verdict: string): YtdlpRefusalKind | null {
  return REFUSAL_PATTERNS.find(([, pattern]) => pattern.test(verdict))?.[0] ?? null
}

/**
 * When a failed run is the source refusing us (exactly when `ytdlpFailure`
 * gives a ToolBlockedError): the wall's kind and the verdict as a caller may
 * read it. Null for any other failure (the caller's link, a broken extractor).
 */
export function ytdlpRefusal (stderr: string): { kind: YtdlpRefusalKind, reason: string } | null {
  const verdict = verdictLine(stderr)
  if (INPUT_PATTERNS.some(p => p.test(verdict))) return null
  const kind = refusalKindOf(verdict)
  return kind ? { kind, reason: ytdlpReason(stderr) } : null
}
