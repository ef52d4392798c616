// The scrubber alone: configured values in every encoding, credential-shaped
// text whatever its value, what it must leave alone, and the values it takes
// from the config.
import t from 'tap'
import { REDACTED, SecretScrubber, createSecretScrubber, originOf, secretValuesOf, serverPathsOf, urlsAsOrigins, withoutUrlQueries } from '../../core/secrets/secret-scrubber.ts'
import { loadConfig } from '../../core/config.ts'
import { prepareDataDirs } from '../../core/data-dir.ts'
import { tempDir } from '../helpers/build.ts'

const VALUE = 'Kilo/77+31 "q"=='

t.test('a configured value goes wherever it appears, raw or encoded', async t => {
  const s = new SecretScrubber([VALUE, 'short'])
  const forms = [
    VALUE,
    encodeURIComponent(VALUE),
    encodeURIComponent(VALUE).replace(/%[0-9A-F]{2}/g, h => h.toLowerCase()),
    encodeURIComponent(VALUE).replace(/%20/g, '+'),
    new URLSearchParams({ v: VALUE }).toString().slice(2),
    JSON.stringify(VALUE).slice(1, -1),
  ]
  for (const form of forms) {
    const out = s.scrub(`before ${form} after`)
    t.equal(out, `before ${REDACTED} after`, form)
  }
  t.equal(s.scrub('in a word: short'), 'in a word: short', 'values under 6 characters are not scrubbed as values')
  t.equal(s.redactKnownValues(JSON.stringify({ note: `key ${VALUE}` })), JSON.stringify({ note: `key ${REDACTED}` }), 'JSON text stays JSON')
})

t.test('a value that contains another goes whole', async t => {
  const s = new SecretScrubber(['abcdef', 'abcdef-ghijkl'])
  t.equal(s.scrub('x abcdef-ghijkl y abcdef'), `x ${REDACTED} y ${REDACTED}`)
})

t.test('credential parameters, in URLs and bare query strings, any case', async t => {
  const s = new SecretScrubber([])
  const cases: Array<[string, string]> = [
    ['https://serpapi.com/search.json?engine=google&q=x&api_key=abc123: UND_ERR_SOCKET', `https://serpapi.com/search.json?engine=google&q=x&api_key=${REDACTED}: UND_ERR_SOCKET`],
    ['https://www.googleapis.com/customsearch/v1?KEY=AIza-1&cx=9&q=x', `https://www.googleapis.com/customsearch/v1?KEY=${REDACTED}&cx=9&q=x`],
    ['q=1&apikey=a&Token=b&access_token=c&sig=d&signature=e&secret=f&password=g&client_secret=h',
      `q=1&apikey=${REDACTED}&Token=${REDACTED}&access_token=${REDACTED}&sig=${REDACTED}&signature=${REDACTED}&secret=${REDACTED}&password=${REDACTED}&client_secret=${REDACTED}`],
    ['"url":"https://h/x?a=1&key=zz"', `"url":"https://h/x?a=1&key=${REDACTED}"`],
    ['monkey=1&keyboard=2&tokens_used=3', 'monkey=1&keyboard=2&tokens_used=3'],
    ['key= and token=', 'key= and token='],
  ]
  for (const [input, expected] of cases) t.equal(s.scrub(input), expected, input)
})

t.test('URL userinfo and Authorization-like text', async t => {
  const s = new SecretScrubber([])
  t.equal(s.scrub('via http://alice:pa55@proxy.example:8080/ now'), `via http://${REDACTED}@proxy.example:8080/ now`)
  t.equal(s.scrub('postgresql://app:pw@db/x'), `postgresql://${REDACTED}@db/x`)
  t.equal(s.scrub('mail me at a@b.com, see https://example.com/u@x'), 'mail me at a@b.com, see https://example.com/u@x', 'an @ after the host is not userinfo')
  t.equal(s.scrub('Authorization: Bearer sk-abcdef123'), `Authorization: Bearer ${REDACTED}`)
  t.equal(s.scrub('{"authorization":"Basic dXNlcjpwYXNz"}'), `{"authorization":"Basic ${REDACTED}"}`)
  t.equal(s.scrub('x-api-key: sk-123456 next'), `x-api-key: ${REDACTED} next`)
  t.equal(s.scrub('sent Bearer eyJhbGciOi.payload.sig'), `sent Bearer ${REDACTED}`)
  t.equal(s.scrub('no credentials here, just a sentence.'), 'no credentials here, just a sentence.')
})

t.test('scrubValue walks objects and arrays, leaves keys and non-strings', async t => {
  const s = new SecretScrubber(['s3cr3t-value'])
  const out = s.scrubValue({ a: 's3cr3t-value', n: 4, b: [{ c: 'x s3cr3t-value' }, null, true], api_key: 'kept as key' })
  t.same(out, { a: REDACTED, n: 4, b: [{ c: `x ${REDACTED}` }, null, true], api_key: 'kept as key' })
  const date = new Date()
  t.equal(s.scrubValue(date), date, 'class instances are left as they are')
})

t.test('withoutUrlQueries, urlsAsOrigins and originOf', async t => {
  t.equal(withoutUrlQueries('Could not fetch https://u:p@serpapi.com/search.json?api_key=X#f: ECONNRESET. See https://a.example/.'),
    'Could not fetch https://serpapi.com/search.json: ECONNRESET. See https://a.example.')
  t.equal(withoutUrlQueries('no url here'), 'no url here')
  t.equal(urlsAsOrigins('POST http://127.0.0.1:9/hook/T0/B0/XXXX?token=1 failed'), 'POST http://127.0.0.1:9 failed')
  t.equal(originOf('https://hooks.example.com/services/T0/B0/XXXX?x=1'), 'https://hooks.example.com')
  t.equal(originOf('not a url'), '(not a valid URL)')
})

t.test('the values come from the one config: tool credentials and the kernel secrets', async t => {
  const dir = tempDir(t)
  // Without SECRET_KEY: the one the data-dir step generates is scrubbed too.
  const config = prepareDataDirs(loadConfig({
    DATA_DIR: dir,
    TOOLS_CONFIG: 'tools.config.json',
    SERPAPI_API_KEY: ' serpapi-Kilo-7731 ',
    GOOGLE_CSE_API_KEY: 'cse-Lima-8842',
    ADMIN_API_KEY: 'admin-Mike-0123456789',
    BLOG_API_KEY: 'blog-November-42',
    LLM_API_KEY: 'llm-Oscar-4242',
    PUBLIC_TOKENS: 'pub-Papa-1,pub-Quebec-2',
    PROXY_URL: 'http://user:proxy-Romeo%2F9@proxy.example:3128',
    ARTIFACTS_S3_BUCKET: 'job-files',
    ARTIFACTS_S3_REGION: 'auto',
    ARTIFACTS_S3_ACCESS_KEY_ID: 'AKIASIERRA',
    ARTIFACTS_S3_SECRET_ACCESS_KEY: 's3-Sierra/secret+42',
    REDIS_URL: 'rediss://default:redis-Sierra-77@redis.example:6380',
    UNRELATED_VARIABLE: 'not-a-credential-value',
  }, process.cwd()))
  const values = secretValuesOf(config)
  for (const v of ['serpapi-Kilo-7731', 'cse-Lima-8842', 'admin-Mike-0123456789', 'blog-November-42', 'llm-Oscar-4242', 'pub-Papa-1', 'pub-Quebec-2', 'proxy-Romeo/9', 's3-Sierra/secret+42', 'redis-Sierra-77', config.secretKey]) {
    t.ok(values.includes(v), `includes ${v.slice(0, 8)}…`)
  }
  t.notOk(values.includes('not-a-credential-value'), 'variables no tool names are not credentials')
  const s = createSecretScrubber(config)
  t.equal(s.scrub(`k=serpapi-Kilo-7731 p=${encodeURIComponent('proxy-Romeo/9')} g=${config.secretKey}`), `k=${REDACTED} p=${REDACTED} g=${REDACTED}`)
})

t.test("a job's texts lose the server's paths: DATA_DIR, ARTIFACTS_DIR, the work, upload and scratch folders", async t => {
  const s = new SecretScrubber(['s3cr3t-value'], { paths: serverPathsOf({ dataDir: '/srv/app/data', artifactsDir: '/mnt/files' }) })
  t.equal(s.scrubJobText("[concat @ 0x5] Unsafe file name '/x.mp4' file:/srv/app/data/work/4f1c-9a/upload/file: Operation not permitted"),
    "[concat @ 0x5] Unsafe file name '/x.mp4' file:[upload]: Operation not permitted")
  t.equal(s.scrubJobText('frames in /srv/app/data/work/4f1c-9a/scratch/frames-x1, stored as /mnt/files/ab/cd (db /srv/app/data/app.db)'),
    'frames in [scratch]/frames-x1, stored as [artifacts]/ab/cd (db [data]/app.db)')
  t.equal(s.scrubJobText('/srv/app/data/work/.incoming/u1 and /srv/app/data/work'), '[work]/.incoming/u1 and [work]')
  t.equal(s.scrubJobText('/srv/app/database and /srv/app/data-old stay'), '/srv/app/database and /srv/app/data-old stay', 'a longer name that starts the same is another path')
  t.equal(s.scrubJobText('key s3cr3t-value in /srv/app/data/x'), 'key [redacted] in [data]/x', 'credentials too')
  t.same(s.scrubJobValue({ note: 'at /srv/app/data/work/j/scratch', n: 1 }), { note: 'at [scratch]', n: 1 })
  t.equal(s.scrub('/srv/app/data/app.db'), '/srv/app/data/app.db', 'log lines keep them: the operator reads those')
})
