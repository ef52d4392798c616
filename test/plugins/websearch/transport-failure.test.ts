// A request that got no answer is reported as a short category, never the
// client's message (which quotes the request URL, keys included).
import t from 'tap'
import { BlockedTargetError, UpstreamError } from '../../../core/tools/contract.ts'
import { transportFailure } from '../../../plugins/websearch/search.ts'

const URL_WITH_KEY = 'https://serpapi.com/search.json?engine=google&q=x&api_key=serpapi-Kilo-7731'

t.test('categories', async t => {
  const cases: Array<[unknown, string]> = [
    [new UpstreamError(`Timed out after 20000 ms fetching ${URL_WITH_KEY}`), 'timed out'],
    [new UpstreamError(`Could not fetch ${URL_WITH_KEY}: UND_ERR_SOCKET`), 'connection reset'],
    [new UpstreamError(`Could not fetch ${URL_WITH_KEY}: ECONNRESET`), 'connection reset'],
    [new UpstreamError(`Could not fetch ${URL_WITH_KEY}: ECONNREFUSED`), 'connection refused'],
    [new UpstreamError(`Could not fetch ${URL_WITH_KEY}: ENOTFOUND`), 'host not found'],
    [new UpstreamError(`Could not fetch ${URL_WITH_KEY}: CERT_HAS_EXPIRED`), 'TLS handshake failed'],
    // The phrases ctx.http itself writes (core/net/public-errors.ts).
    [new UpstreamError(`Could not fetch ${URL_WITH_KEY}: could not connect`), 'could not connect'],
    [new UpstreamError(`Could not fetch ${URL_WITH_KEY}: connection reset`), 'connection reset'],
    [new UpstreamError('Could not resolve serpapi.com: host name not found'), 'host not found'],
    [new UpstreamError(`Could not fetch ${URL_WITH_KEY}: TLS certificate not valid for this host`), 'TLS handshake failed'],
    [new UpstreamError(`The response from ${URL_WITH_KEY} is larger than the 10485760-byte limit`), 'answer too large'],
    [new UpstreamError(`Too many redirects (more than 5): ${URL_WITH_KEY} -> ${URL_WITH_KEY}`), 'unexpected redirect'],
    [new BlockedTargetError('10.0.0.1', 'private address'), 'the address is not allowed (private or local network)'],
    [Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } }), 'connection reset'],
    [new Error(`something else about ${URL_WITH_KEY}`), 'network error'],
    ['a string', 'network error'],
  ]
  for (const [error, expected] of cases) {
    const category = transportFailure(error)
    t.equal(category, expected, expected)
    t.notMatch(category, /serpapi|api_key/)
  }
})
