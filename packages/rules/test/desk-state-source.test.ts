import t from 'tap'
import { deskKey, deskStateSource, hintStatusToDeviceState } from '../src/index.js'

t.test('the default device follows AGENT_CHANNEL_TEMPLATE as Asterisk names devices', async (t) => {
  t.same(deskStateSource('PJSIP/{extension}'), { kind: 'device', template: 'PJSIP/{extension}' })
  t.same(deskStateSource('PJSIP/{extension}@desks'), { kind: 'device', template: 'PJSIP/{extension}' })
  // A Local channel's device keeps its context: Asterisk names it Local/1001@from-internal.
  t.same(deskStateSource('Local/{extension}@from-internal'), {
    kind: 'device',
    template: 'Local/{extension}@from-internal',
  })
  t.equal(deskKey(deskStateSource('Local/{extension}@agents'), '1001'), 'Local/1001@agents')
  // ...and drops the dial string's options, which are no part of the device's name.
  t.equal(deskKey(deskStateSource('Local/{extension}@from-internal/n'), '1001'), 'Local/1001@from-internal')
  t.equal(deskKey(deskStateSource('PJSIP/{extension}'), '1001'), 'PJSIP/1001')
})

t.test('AGENT_DEVICE_TEMPLATE names a device or a hint', async (t) => {
  const custom = deskStateSource('PJSIP/{extension}', 'Custom:desk{extension}')
  t.same(custom, { kind: 'device', template: 'Custom:desk{extension}' })
  t.equal(deskKey(custom, '1001'), 'Custom:desk1001')
  const hint = deskStateSource('Local/{extension}@from-internal', 'hint:{extension}@ext-local')
  t.same(hint, { kind: 'hint', extenTemplate: '{extension}', context: 'ext-local' })
  t.equal(deskKey(hint, '1001'), '1001@ext-local')
  t.same(deskStateSource('x', 'HINT:9{extension}@desks'), {
    kind: 'hint',
    extenTemplate: '9{extension}',
    context: 'desks',
  })
})

t.test('hint status bits become device-state words', async (t) => {
  t.equal(hintStatusToDeviceState(0), 'NOT_INUSE')
  t.equal(hintStatusToDeviceState(1), 'INUSE')
  t.equal(hintStatusToDeviceState(2), 'BUSY')
  t.equal(hintStatusToDeviceState(4), 'UNAVAILABLE')
  t.equal(hintStatusToDeviceState(8), 'RINGING')
  t.equal(hintStatusToDeviceState(9), 'RINGINUSE')
  t.equal(hintStatusToDeviceState(16), 'ONHOLD')
  t.equal(hintStatusToDeviceState(17), 'ONHOLD')
  t.equal(hintStatusToDeviceState(-1), 'INVALID')
  t.equal(hintStatusToDeviceState(-2), 'INVALID')
})
