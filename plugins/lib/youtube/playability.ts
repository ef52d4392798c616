// What a YouTube /player answer's playabilityStatus says about one video, read
// the same way by every YouTube tool (yt, yt_tx, dl_yt): playable, an age gate or a
// private video (that entry's row error: the video is the reason, not the
// caller's connection), or a sign-in wall that is a bot check (the source
// refusing this server: the run stops there). Pure: no I/O, no imports, so the
// worker pool runs it inside each plugin's parser module.

type Json = any

export interface Playability {
  /** playabilityStatus.status as YouTube wrote it (OK, LOGIN_REQUIRED, ERROR, UNPLAYABLE, …); UNKNOWN when absent. */
  status: string
  /** The answer's reason (or its error screen's), as shown to a viewer. */
  reason: string | null
  /** The video asks the viewer to sign in to confirm their age: that entry's error, not a refusal of this server. */
  age_gate: boolean
  /** A sign-in wall that is not about the video ("Sign in to confirm you're not a bot"): YouTube is refusing this server. */
  bot_wall: boolean
  /** The row error for a video that cannot be played (an age gate, private, removed…); null when it plays. */
  error: string | null
}

const text = (node: Json): string | null =>
  typeof node === 'string' ? node : typeof node?.simpleText === 'string' ? node.simpleText : Array.isArray(node?.runs) ? node.runs.map((r: Json) => r?.text ?? '').join('') : null

/** Statuses some InnerTube clients answer an age-restricted video with, instead of LOGIN_REQUIRED. */
const AGE_STATUSES = new Set(['AGE_CHECK_REQUIRED', 'AGE_VERIFICATION_REQUIRED', 'CONTENT_CHECK_REQUIRED'])
/** The wording of age gates across clients and years: "Sign in to confirm your age", "This video may be inappropriate for some users.", "age-restricted". */
const AGE_WORDING = /\bage\b|age-restricted|inappropriate for some users/i

/** Reads a /player answer (parsed JSON) for whether its video plays, and why not. */
export function playabilityOf (player: Json): Playability {
  const p = player?.playabilityStatus ?? {}
  const status = typeof p.status === 'string' ? p.status : 'UNKNOWN'
  const screen = p.errorScreen?.playerErrorMessageRenderer
  const reason: string | null = (typeof p.reason === 'string' ? p.reason : null) ?? text(screen?.reason) ?? null
  const wording = [reason, text(screen?.subreason), ...(Array.isArray(p.messages) ? p.messages : [])].filter(s => typeof s === 'string').join(' ')
  const ageFields = p.desktopLegacyAgeGateReason !== undefined || AGE_STATUSES.has(status) || p.errorScreen?.playerAgeGateRenderer !== undefined
  return judge(status, reason, wording, ageFields)
}

/**
 * The same reading of a /player answer that reached the tool only as words:
 * yt-dlp's verdict on a YouTube link, which is the answer's reason and
 * subreason ("Sign in to confirm your age. This video may be inappropriate for
 * some users."; "Sign in to confirm you're not a bot"). A wall that asks to
 * sign in stands for LOGIN_REQUIRED, anything else for ERROR; then the rule is
 * playabilityOf's, so dl_yt and the InnerTube tools cannot disagree.
 */
export function playabilityOfMessage (message: string): Playability {
  const reason = message.trim() || null
  const status = /\bsign in\b|\blog ?in\b/i.test(message) ? 'LOGIN_REQUIRED' : 'ERROR'
  return judge(status, reason, message, false)
}

function judge (status: string, reason: string | null, wording: string, ageFields: boolean): Playability {
  const botWall = /not a bot/i.test(wording)
  const ageGate = !botWall && (ageFields || AGE_WORDING.test(wording))
  const privateVideo = !botWall && !ageGate && /\bprivate\b/i.test(wording)
  const plays = status === 'OK'
  return {
    status,
    reason,
    age_gate: !plays && ageGate,
    // Any other sign-in wall is about who is asking, not about the video.
    bot_wall: !plays && (botWall || (status === 'LOGIN_REQUIRED' && !ageGate && !privateVideo)),
    error: plays ? null
      : ageGate ? `age-restricted: YouTube asks to sign in to confirm the viewer's age${reason ? ` ("${reason}")` : ''}`
        : `${status.toLowerCase().replace(/_/g, ' ')}: ${reason ?? 'no reason given'}`,
  }
}
