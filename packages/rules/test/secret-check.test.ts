// The shared-secret comparison: every copy of every auth header must carry the secret.
import t from 'tap'
import { headerCopiesOf, secretCheck } from '../src/secret-check.js'

const check = secretCheck('s3cret')
/** Header copies as a request would give them. */
const sent =
  (headers: Record<string, string[]>) =>
  (name: string): readonly string[] =>
    headers[name] ?? []

t.test('each of the three headers alone carries the secret', async (t) => {
  t.ok(check(sent({ authorization: ['Bearer s3cret'] })))
  t.ok(check(sent({ authorization: ['bearer   s3cret'] })), 'the scheme is case-insensitive')
  t.ok(check(sent({ 'x-api-key': ['s3cret'] })))
  t.ok(check(sent({ 'x-access-key': ['s3cret'] })))
  t.ok(check(sent({ 'x-api-key': ['s3cret'], 'x-access-key': ['s3cret'] })), 'several, all right')
})

t.test('refused: nothing sent, a wrong secret, a wrong scheme', async (t) => {
  t.notOk(check(sent({})))
  t.notOk(check(sent({ 'x-api-key': ['wrong'] })))
  t.notOk(check(sent({ 'x-api-key': ['s3cret '] })), 'not trimmed')
  t.notOk(check(sent({ authorization: ['Basic s3cret'] })))
  t.notOk(check(sent({ authorization: ['s3cret'] })), 'no scheme')
})

t.test('one wrong copy refuses the request, whatever else is right', async (t) => {
  t.notOk(check(sent({ 'x-api-key': ['s3cret', 'guess'] })), 'a repeated header')
  t.notOk(check(sent({ 'x-api-key': ['s3cret'], 'x-access-key': ['guess'] })), 'another header')
  t.notOk(check(sent({ authorization: ['Bearer guess'], 'x-api-key': ['s3cret'] })))
})

t.test('headerCopiesOf reads every copy as sent', async (t) => {
  const raw = { headersDistinct: { authorization: ['Bearer a', 'Bearer b'] } }
  t.strictSame(headerCopiesOf({ raw, headers: { authorization: 'Bearer a' } })('authorization'), [
    'Bearer a',
    'Bearer b',
  ])
  t.strictSame(headerCopiesOf({ raw, headers: {} })('x-api-key'), [], 'absent')
  const injected = { raw: {}, headers: { 'x-api-key': ['a', 'b'], 'x-access-key': 'c' } }
  t.strictSame(headerCopiesOf(injected)('x-api-key'), ['a', 'b'], 'a list without headersDistinct')
  t.strictSame(headerCopiesOf(injected)('x-access-key'), ['c'], 'a value')
  t.strictSame(headerCopiesOf(injected)('authorization'), [], 'absent')
})
