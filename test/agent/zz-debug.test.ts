import t from 'tap'
import { listeningApp, rawPost } from './_agent.ts'
t.test('dbg', async t => {
  const { app, base, user } = await listeningApp(t)
  void app
  for (const body of [[[null], {}, { '&}Z*:': 0, jsonrpc: 'Infinity' }], [{}], {}, [null]]) {
    const r = await rawPost(base, body, { authorization: `Bearer ${user.apiKey}` })
    console.error(r.status, (await r.text()).slice(0, 300))
  }
})
