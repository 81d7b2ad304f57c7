// Caller IDs as the shipped dialplan sets them, in the fields Asterisk 22 reports them (captured on
// the test bed: apps/dialer/asterisk-test/caller-id.test.ts): the customer is shown HD_CALLER_ID,
// the desk the customer.
import t from 'tap'
import type { AmiMessage } from '../src/wire/message.js'
import { callEnded, predictive, progressive, setup } from './helpers/calls.js'

const CENTRE = '"Hold, Ltd" <+442079460000>'
const CUSTOMER = '"Asha Rao" <+15551234567>'

function parties(m: AmiMessage | undefined, prefix = ''): string {
  const f = (k: string) => m?.get(`${prefix}${k}`)
  return `${f('CallerIDNum')}/${f('CallerIDName')} -> ${f('ConnectedLineNum')}/${f('ConnectedLineName')}`
}

function dialBegin(events: AmiMessage[], from: string): AmiMessage | undefined {
  return events.find((m) => m.get('Event') === 'DialBegin' && m.get('Channel')?.startsWith(from))
}

for (const local of [false, true]) {
  const options = local ? { customerDial: 'Local/%s@customers', agentDial: 'Local/%s@agents' } : {}
  const via = local ? 'Local routes' : 'PJSIP'
  t.test(`progressive (${via}): the customer is shown HD_CALLER_ID, the desk the customer`, async (t) => {
    const { sim, c } = await setup(options)
    t.teardown(() => sim.close())
    sim.setOutcome('15551234567', { kind: 'answer', ringSeconds: 1, talkSeconds: 2 })
    c.send(
      progressive('p1', '+15551234567', [
        ['CallerID', CUSTOMER],
        ['Variable', `HD_CALLER_ID=${CENTRE}`],
      ]),
    )
    await callEnded(sim, 'p1', c)
    const events = c.events()
    const desk = events.find((m) => m.get('Event') === 'DialBegin' && m.get('Channel') === undefined)
    t.equal(parties(desk, 'Dest'), '+15551234567/Asha Rao -> +15551234567/Asha Rao', 'the desk rings')
    const set = events.find((m) => m.get('Event') === 'NewCallerid')
    t.equal(parties(set), '+442079460000/Hold, Ltd -> +15551234567/Asha Rao', 'CALLERID set before Dial')
    const customer = dialBegin(events, 'PJSIP/1001')
    t.equal(parties(customer), '+442079460000/Hold, Ltd -> +15551234567/Asha Rao')
    t.equal(parties(customer, 'Dest'), '+15551234567/Asha Rao -> +442079460000/Hold, Ltd')
    const enters = events.filter((m) => m.get('Event') === 'BridgeEnter').map((m) => parties(m))
    t.same(
      enters.sort(),
      [
        '+15551234567/Asha Rao -> +442079460000/Hold, Ltd',
        '+442079460000/Hold, Ltd -> +15551234567/Asha Rao',
      ],
      'connected lines kept once the customer answered',
    )
    if (local) {
      const far = events.find(
        (m) =>
          m.get('Event') === 'Hangup' && /^Local\/\+15551234567@customers-.*;2$/.test(m.get('Channel') ?? ''),
      )
      t.equal(parties(far), '+442079460000/Hold, Ltd -> +15551234567/Asha Rao', "the customer's phone")
    }
  })

  t.test(`progressive (${via}): OUTBOUND_CALLER_ID unset: the customer is shown nothing`, async (t) => {
    const { sim, c } = await setup(options)
    t.teardown(() => sim.close())
    sim.setOutcome('15551234567', { kind: 'busy' })
    c.send(progressive('p1', '+15551234567', [['CallerID', CUSTOMER]]))
    await callEnded(sim, 'p1', c)
    t.equal(
      parties(dialBegin(c.events(), 'PJSIP/1001'), 'Dest'),
      '+15551234567/Asha Rao -> <unknown>/<unknown>',
    )
  })

  t.test(`predictive (${via}): the customer is shown the CallerID, the desk HD_CUSTOMER_ID`, async (t) => {
    const { sim, c } = await setup(options)
    t.teardown(() => sim.close())
    sim.setOutcome('15551234567', { kind: 'answer', ringSeconds: 1, talkSeconds: 2 })
    c.send(
      predictive('q1', '+15551234567', [
        ['CallerID', CENTRE],
        ['Variable', `HD_CUSTOMER_ID=${CUSTOMER}`],
      ]),
    )
    const response = await c.waitForEvent('OriginateResponse')
    const customerChannel = response.get('Channel') ?? ''
    const own = c.events().find((m) => m.get('Event') === 'DialBegin' && m.get('Channel') === undefined)
    t.equal(parties(own, 'Dest'), '+442079460000/Hold, Ltd -> +442079460000/Hold, Ltd', 'the customer rings')
    await c.action([
      ['Action', 'Redirect'],
      ['Channel', customerChannel],
      ['Context', 'dialer-agents'],
      ['Exten', '1001'],
      ['Priority', '1'],
    ])
    await callEnded(sim, 'q1', c)
    const desk = dialBegin(c.events(), customerChannel)
    t.equal(parties(desk), '+15551234567/Asha Rao -> +442079460000/Hold, Ltd')
    t.equal(parties(desk, 'Dest'), '1001/Hold, Ltd -> +15551234567/Asha Rao', 'the desk shows the customer')
  })
}
