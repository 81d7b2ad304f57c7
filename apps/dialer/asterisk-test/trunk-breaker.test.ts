import { header } from '@hold-dialer/ami'
import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { lead } from '../test/harness.js'
import { agent, asteriskRig, memoryLogger, startAsterisk } from './testbed.js'

// The trunk breaker on a real Asterisk 22: customer channels that cannot be created stop the dialing
// after TRUNK_BREAKER_FAILURES in a row instead of ringing every agent in a loop. Progressive: the
// shipped dialer-outbound dials HD_CUSTOMER_DIAL, switched here to a technology Asterisk does not
// have (Dial: no channel, no DialBegin, CHANUNAVAIL) and back. Predictive: CUSTOMER_CHANNEL_TEMPLATE
// NoSuchTech/{number} (Originate: Reason 0, no channel).
const asterisk = await startAsterisk(t)

const DOWN = 'NoSuchTech/%s'
const UP = 'Local/%s@customers'

function setCustomerDial(value: string) {
  return asterisk.admin.action({ action: 'Setvar', variable: 'HD_CUSTOMER_DIAL', value })
}

/** Channels Asterisk created for desks (`;1` halves) since `from`. */
function desksRung(from: number): number {
  return asterisk.events
    .slice(from)
    .filter(
      (e) => e.event === 'Newchannel' && /^Local\/\d+@agents-[0-9a-f]+;1$/.test(String(header(e, 'channel'))),
    ).length
}

/**
 * The calls the dialer placed, from its own log (one `calling` line as each Originate is sent): the
 * count the breaker is held to. Asterisk's events come on another AMI session, maybe a moment later.
 */
function placed(lines: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  return lines.filter((l) => l.msg === 'calling')
}

forEachDialect(t, async (t, database) => {
  t.test(
    'progressive: 3 legs not created: no desk rung again until a try 2 s later; resumed when the trunk is back',
    async (t) => {
      await setCustomerDial(DOWN)
      t.teardown(() => setCustomerDial(UP))
      const { logger, lines } = memoryLogger()
      const r = await asteriskRig(t, database, asterisk, {
        logger,
        env: { TRUNK_BREAKER_FAILURES: '3', TRUNK_BREAKER_PROBE_SECONDS: '2' },
      })
      await agent(r, '1001')
      await agent(r, '1002')
      const from = asterisk.events.length
      const olis = Array.from({ length: 8 }, (_, i) => `ATB-P-${i + 1}`)
      for (const [i, oli] of olis.entries()) await r.push(lead(oli, `555000113${i}`))

      await r.until('breaker open', () => r.dialer.trunk().state === 'open')
      const since = r.dialer.trunk().since ?? 0
      t.equal(
        lines.filter((l) => String(l.msg).startsWith('trunk breaker open')).length,
        1,
        'one error logged',
      )

      // A try comes once the probe period has passed, and only one. (A round that began before the
      // breaker opened still dials the leads it claimed: those are not tries.)
      await r.until('one try', () => r.dialer.trunk().trying)
      const atTry = placed(lines)
      t.ok(atTry.length - 1 >= 3, `calls placed before the try: ${atTry.length - 1}`)
      t.ok(Number(atTry.at(-1)?.time) - since >= 2000 - 50, 'not before the probe period')
      await r.until('the try ended', () => !r.dialer.trunk().trying)
      t.equal(r.dialer.trunk().state, 'open', 'the try failed: still open')
      t.equal(placed(lines).length, atTry.length, 'no other call placed while the try was under way')

      // What Asterisk saw (on another AMI session: its events may come a moment later): one desk
      // rung for each call placed, no customer channel.
      await r.until('a desk rung for each call placed', () => desksRung(from) === placed(lines).length)
      const customerChannels = asterisk.events
        .slice(from)
        .filter((e) => e.event === 'Newchannel' && String(header(e, 'channel')).includes('@customers'))
      t.equal(customerChannels.length, 0, 'no customer channel was created')
      for (const oli of olis) t.match(await r.lead(oli), { call_count: 0 }, `${oli}: nothing counted`)

      await setCustomerDial(UP)
      await r.until('breaker closed', () => r.dialer.trunk().state === 'closed')
      t.equal(lines.filter((l) => String(l.msg).startsWith('trunk breaker closed')).length, 1)
      await r.until(
        'a lead received',
        async () => {
          for (const oli of olis) if ((await r.lead(oli))?.dial_status === 'Received') return true
          return false
        },
        30_000,
      )
    },
  )

  t.test(
    'predictive: NoSuchTech customers: the breaker opens, no agent is ever rung, one try per period',
    async (t) => {
      const { logger, lines } = memoryLogger()
      const r = await asteriskRig(t, database, asterisk, {
        logger,
        env: {
          DIAL_MODE: 'predictive',
          CUSTOMER_CHANNEL_TEMPLATE: 'NoSuchTech/{number}',
          TRUNK_BREAKER_FAILURES: '3',
          TRUNK_BREAKER_PROBE_SECONDS: '2',
        },
      })
      await agent(r, '1001')
      const from = asterisk.events.length
      const originates = () =>
        asterisk.events
          .slice(from)
          .filter(
            (e) => e.event === 'OriginateResponse' && String(header(e, 'channel')).startsWith('NoSuchTech/'),
          ).length
      const olis = Array.from({ length: 16 }, (_, i) => `ATB-D-${i + 1}`)
      for (const [i, oli] of olis.entries()) await r.push(lead(oli, `55500012${String(i).padStart(2, '0')}`))

      await r.until('breaker open', () => r.dialer.trunk().state === 'open')
      const since = r.dialer.trunk().since ?? 0
      t.equal(
        lines.filter((l) => String(l.msg).startsWith('trunk breaker open')).length,
        1,
        'one error logged',
      )
      await r.until('one try', () => r.dialer.trunk().trying)
      const atTry = placed(lines)
      t.ok(
        atTry.length - 1 >= 3 && atTry.length - 1 < olis.length,
        `customers tried before it opened: ${atTry.length - 1}`,
      )
      t.ok(Number(atTry.at(-1)?.time) - since >= 2000 - 50, 'not before the probe period')
      await r.until('the try ended', () => !r.dialer.trunk().trying)
      t.equal(r.dialer.trunk().state, 'open', 'the try failed: still open')
      t.equal(placed(lines).length, atTry.length, 'no other call placed while the try was under way')
      await r.until('a failed originate for each call placed', () => originates() === placed(lines).length)
      t.equal(desksRung(from), 0, 'no agent was rung')
      for (const oli of olis) t.match(await r.lead(oli), { call_count: 0 }, `${oli}: nothing counted`)
    },
  )
})
