// TRUST_PROXY as the API's and the dialer's listeners hand it to Fastify.
import t from 'tap'
import { fastifyTrustProxy } from '../src/index.js'

t.test('a word and a list are passed on as they are', async (t) => {
  t.equal(fastifyTrustProxy(true), true)
  t.equal(fastifyTrustProxy(false), false)
  const list = ['127.0.0.1', '10.0.0.0/8']
  const passed = fastifyTrustProxy(list)
  t.same(passed, list)
  t.not(passed, list, 'a copy: Fastify may keep it')
})

t.test('a hop count trusts the nearest N addresses from the socket', async (t) => {
  const rule = fastifyTrustProxy(2)
  if (typeof rule !== 'function') throw new Error('a count is a rule')
  t.ok(rule('127.0.0.1', 0), 'the socket is the first proxy')
  t.ok(rule('10.0.0.1', 1), 'the one before it, the second')
  t.notOk(rule('203.0.113.9', 2), 'the third address is the client')
})
