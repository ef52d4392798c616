// Nominatim's one request a second holds across processes (REDIS_URL): two
// apps sharing one Redis run maps jobs at once, and the fixture Nominatim
// sees every request at least a second after the previous one, whichever
// app sent it (the turns live in the kernel's shared state). Spacing is
// asserted, not speed.
import t from 'tap'
import { signup } from '../../helpers/build.ts'
import { startRedis } from '../../helpers/redis-server.ts'
import { buildMapsApp, runMaps } from '../../fixtures/maps/app.ts'
import { startUpstreams } from '../../fixtures/maps/upstreams.ts'

t.test('two API processes, one Redis: Nominatim requests from both are a second apart', async t => {
  const redis = await startRedis(t)
  const up = await startUpstreams({ osmTagged: 1 })
  t.teardown(() => up.close())
  const env = { REDIS_URL: redis.url }
  const a = await buildMapsApp(t, { urls: up.urls, env })
  const b = await buildMapsApp(t, { urls: up.urls, env })
  const [userA, userB] = [await signup(a), await signup(b)]
  const runs = await Promise.all([
    runMaps(a, userA.apiKey, { prompt: 'plumbers in Denver', max_results: 1 }),
    runMaps(b, userB.apiKey, { prompt: 'plumbers in Boston', max_results: 1 }),
    runMaps(a, userA.apiKey, { prompt: 'dentists in Chicago', max_results: 1 }),
    runMaps(b, userB.apiKey, { prompt: 'dentists in Austin', max_results: 1 }),
  ])
  for (const run of runs) t.match(run.status, { status: 'done' })
  const places = up.nominatim.hits.map(h => h.query.get('q')).sort()
  t.same(places, ['Austin', 'Boston', 'Chicago', 'Denver'], 'each app geocoded its own places')
  const arrivals = up.nominatim.hits.map(h => h.at).sort((x, y) => x - y)
  for (let i = 1; i < arrivals.length; i++) {
    const gap = arrivals[i]! - arrivals[i - 1]!
    // The turn starts a second after the previous request's answer was read, so the
    // server sees more than a second; 10 ms allow for the two clocks' rounding.
    t.ok(gap >= 990, `Nominatim request ${i + 1} arrived ${gap} ms after the previous one`)
  }
  const overpass = up.overpass.hits.map(h => h.at).sort((x, y) => x - y)
  for (let i = 1; i < overpass.length; i++) t.ok(overpass[i]! - overpass[i - 1]! >= 990, `Overpass request ${i + 1}: ${overpass[i]! - overpass[i - 1]!} ms after the previous one`)
})
