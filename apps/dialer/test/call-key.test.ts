// A call's key names its lead and its claim: what the expiry sweep reads from the PBX's live calls.
import t from 'tap'
import { callKey, isCallOfLead, leadOfKey, tokenOfKey } from '../src/calls/call-key.js'

t.test('a call key gives back its lead and its token', async (t) => {
  const key = callKey(12729, '0a1b2c3d')
  t.equal(key, 'hd-12729-0a1b2c3d')
  t.equal(leadOfKey(key), 12729)
  t.equal(tokenOfKey(key), '0a1b2c3d')
  t.ok(isCallOfLead(key, 12729))
  t.notOk(isCallOfLead(key, 1272), 'not a lead whose id is a prefix of it')
})

t.test('a Linkedid of another shape names no lead', async (t) => {
  for (const other of ['1732800000.42', 'hd-12729', 'hd-x-0a1b2c3d', 'hd-12-0a1b2c3d-extra', ''])
    t.equal(leadOfKey(other), undefined, JSON.stringify(other))
})
