import { forEachDialect } from '@hold-dialer/db/testing'
import { internationalForm } from '@hold-dialer/rules'
import t from 'tap'
import { lead, listPerson } from '../test/harness.js'
import { agent, asteriskRig, settled, startAsterisk } from './testbed.js'

// One identity per number on a real Asterisk 22, in a US centre (DEFAULT_COUNTRY=US), with the
// shipped dialplan and the default DIAL_NUMBER_FORMAT (e164): a Budapest lead is dialed as
// +3612345201 (the test bed answers it), and a listed person written another way is never dialed:
// Asterisk never sees a channel for that number.
const asterisk = await startAsterisk(t)

const MODES = [
  ['progressive', {}],
  ['predictive', { DIAL_MODE: 'predictive' }],
] as const

forEachDialect(t, async (t, database) => {
  const { kysely: db } = database.handle
  MODES.forEach(([mode, env], m) => {
    for (const callbackMode of ['pool', 'pinned'] as const) {
      t.test(
        `${mode}, ${callbackMode}: Budapest dialed as +36; a listed person written another way never`,
        async (t) => {
          const r = await asteriskRig(t, database, asterisk, {
            env: { ...env, DEFAULT_COUNTRY: 'US', CALLBACK_MODE: callbackMode },
          })
          const a = await agent(r, '1001')
          // The list is shared by the file: a number of its own per case.
          const listed = `+1 555 000 2${m}${callbackMode === 'pool' ? 1 : 2}1`
          const e164 = internationalForm(listed, 'US')
          await listPerson(db, listed)
          const pin = callbackMode === 'pinned' ? { agent_id: a } : {}
          const from = asterisk.events.length
          const id = `AI-${mode}-${callbackMode}`
          // The listed person as the CRM writes it nationally; the busy script would ring if dialed.
          await r.push([
            lead(`${id}-listed`, e164.slice(2), pin),
            lead(`${id}-hu`, `+36 1 234 5${m}${callbackMode === 'pool' ? 1 : 2}1`, pin),
          ])
          t.match(await settled(r, `${id}-hu`), {
            dial_status: 'Received',
            call_count: 1,
            phone_e164: `+3612345${m}${callbackMode === 'pool' ? 1 : 2}1`,
          })
          t.match(await r.attempts(`${id}-hu`), [
            { outcome: 'Received', phone_e164: `+3612345${m}${callbackMode === 'pool' ? 1 : 2}1` },
          ])
          await r.until('the listed lead ended', async () => {
            const row = await r.lead(`${id}-listed`)
            return callbackMode === 'pool' ? row === undefined : row?.dial_status === 'Disposed'
          })
          const channels = asterisk.events
            .slice(from)
            .filter((e) => e.event === 'Newchannel')
            .map((e) => String(e.channel))
          t.ok(
            channels.some((c) =>
              c.startsWith(`Local/+3612345${m}${callbackMode === 'pool' ? 1 : 2}1@customers`),
            ),
            'the customer leg was dialed in its international form',
          )
          t.notOk(
            channels.some((c) => c.includes(e164.slice(2))),
            'the listed person was never dialed',
          )
          t.same(await r.attempts(`${id}-listed`), [])
        },
      )
    }
  })
})
