// yt-dlp's failure texts → job outcomes, on real stderr lines as yt-dlp prints them
// (quoted from yt-dlp bug reports; the ids are the reporters').
import t from 'tap'
import { InputError, ToolBlockedError, UpstreamError } from '../../../core/tools/contract.ts'
import { ytdlpFailure, ytdlpRefusal, type YtdlpRefusalKind } from '../../../plugins/lib/media/index.ts'

const COOKIES_ADVICE = 'Use --cookies-from-browser or --cookies for the authentication. See  https://github.com/yt-dlp/yt-dlp/wiki/FAQ#how-do-i-pass-cookies-to-yt-dlp  for how to manually pass cookies. Also see  https://github.com/yt-dlp/yt-dlp/wiki/Extractors#exporting-youtube-cookies  for tips on effectively exporting YouTube cookies'

const cases: Array<[string, typeof ToolBlockedError | typeof InputError | typeof UpstreamError, RegExp, YtdlpRefusalKind | null]> = [
  // login, age and bot walls → blocked
  [`[youtube] jBtLD2zxTlY: Downloading webpage\nERROR: [youtube] jBtLD2zxTlY: Sign in to confirm your age. This video may be inappropriate for some users. ${COOKIES_ADVICE}`, ToolBlockedError, /Sign in to confirm your age/, 'login_required'],
  [`ERROR: [youtube] dQw4w9WgXcQ: Sign in to confirm you’re not a bot. ${COOKIES_ADVICE}`, ToolBlockedError, /not a bot/, 'bot_check'],
  ['ERROR: [Instagram] Clq_poiJd63: Requested content is not available, rate-limit reached or login required. Use --cookies, --cookies-from-browser, --username and --password, or --netrc (instagram) to provide account credentials', ToolBlockedError, /rate-limit reached or login required/, 'login_required'],
  ['ERROR: [Instagram] DMiGcwLok9U: Requested content is not available, rate-limit reached or login required. Use --cookies-from-browser or --cookies for the authentication. See  https://github.com/yt-dlp/yt-dlp/wiki/FAQ#how-do-i-pass-cookies-to-yt-dlp  for how to manually pass cookies', ToolBlockedError, /login required/, 'login_required'],
  ['ERROR: [Instagram] CTomrHIFc36: You need to log in to access this content. Use --cookies, --username and --password, or --netrc (instagram) to provide account credentials', ToolBlockedError, /log in/, 'login_required'],
  ['ERROR: [facebook] 1234567890: This video is only available for registered users. Use --cookies-from-browser or --cookies for the authentication.', ToolBlockedError, /registered users/, 'login_required'],
  // rate limits → blocked
  ['ERROR: [generic] Unable to download webpage: HTTP Error 429: Too Many Requests (caused by <HTTPError 429: Too Many Requests>)', ToolBlockedError, /429/, 'rate_limited'],
  ['ERROR: [youtube] abc123def45: Unable to download API page: HTTP Error 429: Too Many Requests (caused by <HTTPError 429: \'Too Many Requests\'>); please report this issue on  https://github.com/yt-dlp/yt-dlp/issues?q= , filling out the appropriate issue template. Confirm you are on the latest version using  yt-dlp -U', ToolBlockedError, /429/, 'rate_limited'],
  // geo blocks → blocked
  ['ERROR: [youtube] ltcd1B8WyTM: Video unavailable. The uploader has not made this video available in your country', ToolBlockedError, /available in your country/, 'geo_block'],
  ['ERROR: [youtube] LrUvu1mlWco: The uploader has not made this video available in your country. This video is available in United States.', ToolBlockedError, /country/, 'geo_block'],
  ['ERROR: [TikTok] 7100000000000000000: Your IP address is blocked from accessing this post', ToolBlockedError, /IP address is blocked/, 'geo_block'],
  // a bare refusal → blocked, kind other
  ['ERROR: unable to download video data: HTTP Error 403: Forbidden', ToolBlockedError, /403: Forbidden/, 'other'],
  // unsupported or private → input
  ['WARNING: [generic] Falling back on generic information extractor\nERROR: Unsupported URL: https://example.com/about', InputError, /Unsupported URL/, null],
  ['ERROR: \'not-a-url\' is not a valid URL. Set --default-search "ytsearch" (or run  yt-dlp "ytsearch:not-a-url" ) to search YouTube', InputError, /not a valid URL/, null],
  ['ERROR: [youtube] xxxxxxxxxxx: Private video. Sign in if you\'ve been granted access to this video', InputError, /Private video/, null],
  // the rest → upstream
  ['ERROR: [youtube] xxxxxxxxxxx: Video unavailable. This video has been removed by the uploader', UpstreamError, /removed by the uploader/, null],
  ['ERROR: [youtube] xxxxxxxxxxx: This video is unavailable', UpstreamError, /unavailable/, null],
  ['ERROR: [Instagram] C1abc: Unable to extract shared data; please report this issue on  https://github.com/yt-dlp/yt-dlp/issues?q= , filling out the appropriate issue template. Confirm you are on the latest version using  yt-dlp -U', UpstreamError, /Unable to extract shared data$/, null],
  ['ERROR: [generic] Unable to download webpage: <urlopen error [Errno 111] Connection refused> (caused by URLError(ConnectionRefusedError(111, \'Connection refused\')))', UpstreamError, /Connection refused/, null],
  ['', UpstreamError, /without saying why/, null],
]

for (const [stderr, kind, reason, refusal] of cases) {
  t.test(stderr.slice(0, 80) || '(empty stderr)', async t => {
    const outcome = ytdlpFailure(stderr)
    t.type(outcome, kind)
    t.equal(outcome.constructor, kind, kind.name)
    t.match(outcome.message, reason)
    t.notMatch(outcome.message, /^ERROR:|--cookies|yt-dlp -U|report this issue/, 'no operator advice, no prefix')
    t.ok(outcome.message.length <= 300)
    // A refusal's kind exactly when the outcome is blocked, with the same reason.
    t.same(ytdlpRefusal(stderr), refusal === null ? null : { kind: refusal, reason: outcome.message }, `refusal kind ${refusal}`)
  })
}

t.test('blocked and upstream outcomes are refunded, input ones are not', async t => {
  t.equal(ytdlpFailure('ERROR: [youtube] x: Sign in to confirm your age').refund, true)
  t.equal(ytdlpFailure('ERROR: [youtube] x: Sign in to confirm your age').blocked, true)
  t.equal(ytdlpFailure('ERROR: Unsupported URL: https://example.com/').refund, false)
  t.equal(ytdlpFailure('ERROR: [generic] x: something broke').refund, true)
})

t.test('no internal path reaches the message', async t => {
  const outcome = ytdlpFailure('ERROR: unable to open for writing: [Errno 13] Permission denied: \'/var/lib/app/data/scratch/job-1/video.mp4.part\'')
  t.notMatch(outcome.message, /\/var\/lib|scratch|job-1/)
  t.match(outcome.message, /Permission denied/)
  const url = ytdlpFailure('ERROR: Unsupported URL: https://example.com/a/b/c')
  t.match(url.message, /https:\/\/example\.com\/a\/b\/c/, 'URLs are kept')
})

t.test('the verdict is the last ERROR line, not warnings before it', async t => {
  const outcome = ytdlpFailure('WARNING: [youtube] HTTP Error 429 on a thumbnail\nERROR: Unsupported URL: https://example.com/')
  t.type(outcome, InputError)
})
