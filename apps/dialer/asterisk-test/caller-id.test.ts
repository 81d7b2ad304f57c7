import { type AmiMessage, header } from '@hold-dialer/ami'
import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { lead } from '../test/harness.js'
import { agent, asteriskRig, settled, startAsterisk } from './testbed.js'

// Who is shown whom, read from Asterisk 22's own events through the shipped dialplan. A Local
// channel's `;2` half is the far party's own line: its CallerIDNum/Name is what that phone (the
// customer's, the desk's) is shown, as a trunk or a desk phone is sent the `;1` half's connected
// line. Both dial modes, OUTBOUND_CALLER_ID set and unset.
const asterisk = await startAsterisk(t)

const CENTRE = { OUTBOUND_CALLER_ID: '"Hold Co" <+442079460000>' }

/** `num/name` of a channel's caller ID, or of its connected line. */
function party(e: AmiMessage | undefined, which: 'CallerID' | 'ConnectedLine', prefix = ''): string {
  const num = which === 'CallerID' ? 'CallerIDNum' : 'ConnectedLineNum'
  const name = which === 'CallerID' ? 'CallerIDName' : 'ConnectedLineName'
  return `${header(e ?? {}, `${prefix}${num}`)}/${header(e ?? {}, `${prefix}${name}`)}`
}

/** Every event of a channel whose name matches, in order. */
function of(events: AmiMessage[], channel: RegExp): AmiMessage[] {
  return events.filter((e) => channel.test(String(header(e, 'channel') ?? '')))
}

const SNAPSHOTS = /^(Newchannel|NewCallerid|NewConnectedLine|Newstate|BridgeEnter|Hangup)$/

forEachDialect(t, async (t, database) => {
  for (const mode of ['progressive', 'predictive'] as const) {
    for (const centre of [true, false]) {
      const n = `${mode === 'progressive' ? 1 : 2}${centre ? 1 : 2}`
      const number = `55500080${n}`
      // The test bed's centre has no country (TIMEZONE UTC): the digits carry their own code.
      const customer = `+${number}`
      const shown = centre ? '+442079460000/Hold Co' : '<unknown>/<unknown>'
      t.test(
        `${mode}, OUTBOUND_CALLER_ID ${centre ? 'set' : 'unset'}: the customer is shown ${shown}, the desk the customer`,
        async (t) => {
          const r = await asteriskRig(t, database, asterisk, {
            env: { DIAL_MODE: mode, ...(centre ? CENTRE : {}) },
          })
          await agent(r, '1001')
          const from = asterisk.events.length
          const oli = `CID-${mode}-${n}`
          await r.push(lead(oli, number, { client_name: 'Asha "A." Rao' }))
          const row = await settled(r, oli)
          t.match(row, { dial_status: 'Received' })
          // The events of the call: the last Hangup may come after the lead is settled.
          const deskPhone = /^Local\/1001@agents-[0-9a-f]+;2$/
          const customerPhone = new RegExp(`^Local/\\${customer}@customers-[0-9a-f]+;2$`)
          await r.until('both phones hung up', () =>
            [deskPhone, customerPhone].every((c) =>
              of(asterisk.events.slice(from), c).some((e) => e.event === 'Hangup'),
            ),
          )
          const events = asterisk.events.slice(from).filter((e) => SNAPSHOTS.test(String(e.event)))

          // The customer's phone: the centre's caller ID, or none; never their own number.
          const customerSide = of(events, customerPhone)
          t.ok(customerSide.length > 0, "the customer's line was seen")
          t.equal(party(customerSide.at(-1), 'CallerID'), shown, 'what the customer is shown')
          t.notOk(
            customerSide.some((e) => header(e, 'calleridnum') === customer),
            'the customer is never shown their own number',
          )
          const customerLeg = of(
            asterisk.events.slice(from),
            new RegExp(`^Local/\\${customer}@customers-[0-9a-f]+;1$`),
          )
          t.equal(
            party(customerLeg.filter((e) => e.event === 'BridgeEnter').at(-1), 'ConnectedLine'),
            shown,
            "the customer's leg stays connected to the centre once the agent is on",
          )

          // The desk: the customer's name and number while it rings and once connected.
          const deskLeg = /^Local\/1001@agents-[0-9a-f]+;1$/
          const deskRings = asterisk.events
            .slice(from)
            .find((e) => e.event === 'DialBegin' && deskLeg.test(String(header(e, 'destchannel'))))
          t.equal(
            party(deskRings, 'ConnectedLine', 'Dest'),
            `${customer}/Asha A. Rao`,
            'the desk rings with the customer',
          )
          const desk = of(events, deskPhone)
          t.equal(
            party(
              desk.find((e) => e.event === 'Newstate'),
              'CallerID',
            ),
            `${customer}/Asha A. Rao`,
            "the desk's display while ringing",
          )
          t.equal(party(desk.at(-1), 'CallerID'), `${customer}/Asha A. Rao`, "the desk's display at the end")
          const deskBridged = of(events, deskLeg).filter((e) => e.event === 'BridgeEnter')
          t.equal(
            party(deskBridged.at(-1), 'ConnectedLine'),
            `${customer}/Asha A. Rao`,
            'connected to the customer',
          )
        },
      )
    }
  }
})
