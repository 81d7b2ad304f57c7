import type { AmiMessage } from '@hold-dialer/ami'
import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { childDialer } from '../test/child-dialer.js'
import { lead } from '../test/harness.js'
import { agent, asteriskRig, memoryLogger, startAsterisk, TESTBED_ENV } from './testbed.js'

// A dialer paused (SIGSTOP) past RESERVATION_TIMEOUT_SECONDS while its call goes on at a real
// Asterisk 22 (DECISIONS section 8): the other dialer keeps the reservation while the call is live,
// counts the call as Unknown once it has ended unfollowed, dials the lead again under its own claim,
// and the paused dialer's late result lands on its own attempt row, never on the lead.
const asterisk = await startAsterisk(t)

/** The customer's Local channel (`;1`, the half the dialer sees) of one call to `number`. */
const customerLeg = (number: string) => (e: AmiMessage) =>
  /;1$/.test(String(e.channel)) && String(e.channel).startsWith(`Local/+${number}@customers`)

/**
 * The customer of the first call to `number` since event `from` hangs up: the far half (`;2`) of
 * the customer's Local pair, as a phone put down would.
 */
async function customerHangsUp(number: string, from: number): Promise<void> {
  const far = asterisk.events
    .slice(from)
    .find(
      (e) =>
        e.event === 'Newchannel' &&
        /;2$/.test(String(e.channel)) &&
        String(e.channel).startsWith(`Local/+${number}@customers`),
    )
  await asterisk.admin.action({ action: 'Hangup', channel: String(far?.channel), cause: 16 })
}

forEachDialect(t, async (t, database) => {
  // MySQL/MariaDB only: a process paused while it holds SQLite's one write lock stops every writer
  // until it resumes (docs/decisions.md, "Dialer").
  if (database.dialect !== 'mysql') return
  t.test('SIGSTOP past the reservation timeout, on the real PBX', async (t) => {
    const { logger, lines } = memoryLogger()
    const r = await asteriskRig(t, database, asterisk, {
      startDialer: false,
      logger,
      env: { RESERVATION_TIMEOUT_SECONDS: '3', RETRY_SECONDS: '0' },
    })
    await agent(r, '1051')
    // 5550009xxx: answers after 1 s and talks for an hour, until the test hangs up.
    const NUMBER = '5550009051'
    const paused = childDialer(
      t,
      { amiPort: asterisk.port, ...asterisk.dialerUser, timezone: r.config.timezone },
      database,
      'paused-dialer',
      TESTBED_ENV,
    )
    await paused.ready()
    const from = asterisk.events.length
    const customerUp = (since: number) =>
      asterisk.waitForEvent(
        (e) => e.event === 'Newstate' && e.channelstatedesc === 'Up' && customerLeg(NUMBER)(e),
        30_000,
        since,
      )
    await r.push(lead('AP-1', NUMBER))
    await customerUp(from)
    const first = await r.lead('AP-1')
    const id = Number(first?.id)
    const token = String(first?.claim_token)
    t.ok(
      asterisk.events.slice(from).some((e) => e.event === 'Newchannel' && e.linkedid === `hd-${id}-${token}`),
      "Asterisk carries the claim's key as the call's Linkedid",
    )

    paused.process.kill('SIGSTOP')
    await r.startDialer()
    await r.until('the expired reservation kept: its call is live', () =>
      lines.some((l) => String(l.msg).startsWith('expired reservation kept') && l.lead === id),
    )
    t.match(await r.lead('AP-1'), { isReserved: 1, reserved_by: 'paused-dialer', claim_token: token })

    // The customer hangs up while the holder is paused.
    const hangupAt = asterisk.events.length
    await customerHangsUp(NUMBER, from)
    await r.until('the lost result counted', () =>
      lines.some((l) => String(l.msg).startsWith('released expired reservations') && l.counted === 1),
    )
    // Dialed again (the retry is due at once here) by the other dialer, once the first call was over.
    await customerUp(hangupAt)
    const newCalls = asterisk.events
      .slice(from)
      .filter((e) => e.event === 'Newchannel' && customerLeg(NUMBER)(e))
    t.equal(newCalls.length, 2, 'two calls in all')
    const firstHangup = asterisk.events
      .slice(from)
      .findIndex((e) => e.event === 'Hangup' && customerLeg(NUMBER)(e))
    const secondCall = newCalls[1] ? asterisk.events.slice(from).indexOf(newCalls[1]) : -1
    t.ok(firstHangup >= 0 && firstHangup < secondCall, 'the second call began after the first had ended')
    const second = await r.lead('AP-1')
    t.match(second, { reserved_by: 'dialer-test', isReserved: 1 })
    t.not(second?.claim_token, token)
    await customerHangsUp(NUMBER, hangupAt)
    await r.until(
      'settled by the other dialer',
      async () => (await r.lead('AP-1'))?.dial_status === 'Received',
    )

    // The paused dialer comes back: its late result fills its own row, the lead is left alone.
    paused.process.kill('SIGCONT')
    await r.until('the late result written', () => paused.output().includes('late result'))
    const attempts = await r.attempts('AP-1')
    t.equal(attempts.length, 2, 'one attempt row for each call placed')
    const mine = attempts.find((a) => a.linkedid === `hd-${id}-${token}`)
    t.match(mine, { dialer_id: 'paused-dialer', attempt_no: 1, superseded: 0 })
    t.notOk(['Dialing', 'Unknown'].includes(String(mine?.outcome)), `its real result: ${mine?.outcome}`)
    t.match(await r.lead('AP-1'), { dial_status: 'Received', call_count: 2, isReserved: 0 })
    await paused.stop()
  })
})
