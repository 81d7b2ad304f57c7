import { AmiClient, type AmiMessage, header } from '@hold-dialer/ami'
import { forEachDialect } from '@hold-dialer/db/testing'
import { sql } from 'kysely'
import t from 'tap'
import { childDialer, simTarget } from './child-dialer.js'
import { type Harness, harness, lead, memoryLogger } from './harness.js'

// Several dialers under faults (DECISIONS section 8): a reservation is not released while its call is
// live, a dialer adopts only its own claim's call, a late result never overwrites a newer claim, and
// an answered predictive call's count for the abandon-rate window is written with its result.

/** A customer who talks until the test hangs up: a fixed talk time would race a loaded machine. */
const TALKS_ON = { kind: 'answer', ringSeconds: 1, talkSeconds: 100_000 } as const

/** Pushes a lead for `number` and waits until the customer has answered (a dialer started first). */
async function pushAndAnswer(h: Harness, oliId: string, number: string): Promise<void> {
  await h.push(lead(oliId, number))
  await h.until(
    'answered',
    () => h.sim.calls.some((c) => c.number === number && c.answeredAt !== null),
    20_000,
  )
}

forEachDialect(t, async (t, database) => {
  t.test(
    'predictive: the abandon-rate count is written with the result, again after a failed write',
    async (t) => {
      const h = await harness(t, database, { env: { DIAL_MODE: 'predictive', HOLD_TIMEOUT_SECONDS: '3' } })
      await h.addAgent('4103')
      const NUMBER = '5553100003'
      h.sim.setOutcome(NUMBER, { kind: 'answer', ringSeconds: 1, talkSeconds: 50 })
      await h.push(lead('FE-3', NUMBER))
      await h.until('answered', () => h.sim.calls.some((c) => c.number === NUMBER && c.answeredAt !== null))
      const db = database.handle.kysely
      await sql`ALTER TABLE hold_dialer_abandon_stats RENAME TO hold_dialer_abandon_stats_away`.execute(db)
      await h.until('settle failed at least once', () => h.dialer.stats.settleErrors > 0)
      t.match(await h.lead('FE-3'), { dial_status: 'Calling', isReserved: 1 }, 'nothing half-written')
      t.match(
        await h.attempts('FE-3'),
        [{ outcome: 'Dialing', ended_at: null }],
        'its attempt row still open',
      )
      await sql`ALTER TABLE hold_dialer_abandon_stats_away RENAME TO hold_dialer_abandon_stats`.execute(db)
      await h.until('Received', async () => (await h.lead('FE-3'))?.dial_status === 'Received')
      const stats = await db
        .selectFrom('hold_dialer_abandon_stats')
        .select((eb) => [
          eb.fn.sum<number>('answered').as('answered'),
          eb.fn.sum<number>('abandoned').as('abandoned'),
        ])
        .executeTakeFirstOrThrow()
      t.match(stats, { answered: 1, abandoned: 0 }, 'counted once, with the result')
      t.equal((await h.attempts('FE-3')).length, 1)
    },
  )

  // A process paused while it holds SQLite's one write lock stops every writer until it resumes (no
  // other dialer can even start): the pause is a fault of several dialers on MySQL/MariaDB, where
  // locks are the server's (docs/decisions.md, "Dialer").
  if (database.dialect === 'mysql') {
    t.test(
      'a dialer paused past the reservation timeout: its lead is kept while the call is live, its lost result counted, and its late result never overwrites the next claim',
      async (t) => {
        const { logger, lines } = memoryLogger()
        const h = await harness(t, database, {
          startDialer: false,
          // A lost result is retried on the schedule: at once here, so that the lead is claimed again.
          env: { RESERVATION_TIMEOUT_SECONDS: '2', RETRY_SECONDS: '0' },
          logger,
        })
        await h.addAgent('4101')
        const NUMBER = '5553100001'
        h.sim.setOutcome(NUMBER, TALKS_ON)
        const paused = childDialer(t, simTarget(h), database, 'paused-dialer')
        await paused.ready()
        await pushAndAnswer(h, 'FE-1', NUMBER)
        const first = await h.lead('FE-1')
        const id = Number(first?.id)
        const token = String(first?.claim_token)
        t.match(token, /^[0-9a-f]{8}$/, 'the claim stored its token')
        t.ok(
          h.sim.channels().some((c) => c.linkedid === `hd-${id}-${token}`),
          "the call is named after the claim's token",
        )
        t.match(
          await h.attempts('FE-1'),
          [{ outcome: 'Dialing', ended_at: null, linkedid: `hd-${id}-${token}`, dialer_id: 'paused-dialer' }],
          "the claim opened the call's attempt row",
        )

        paused.process.kill('SIGSTOP')
        h.sim.setOutcome(NUMBER, { kind: 'answer', ringSeconds: 1, talkSeconds: 2 })
        await h.startDialer()
        await h.until('the expired reservation is kept: its call is live', () =>
          lines.some((l) => String(l.msg).startsWith('expired reservation kept') && l.lead === id),
        )
        t.match(
          await h.lead('FE-1'),
          { dial_status: 'Calling', isReserved: 1, reserved_by: 'paused-dialer', claim_token: token },
          'still held by the paused dialer',
        )
        t.equal(h.sim.originateCount(), 1, 'not dialed again while its call is live')
        // A second round's warning: the first round's sweep of agents' holds has run whole.
        await h.until(
          'a second round kept it',
          () =>
            lines.filter((l) => String(l.msg).startsWith('expired reservation kept') && l.lead === id)
              .length >= 2,
        )
        t.match(
          await database.handle.kysely
            .selectFrom('dialer_employee')
            .select(['on_call_by'])
            .where('extension', '=', '4101')
            .executeTakeFirst(),
          { on_call_by: 'paused-dialer' },
          'the agent on the live call stays held by the paused dialer, whose hold has aged as much',
        )

        // The customer hangs up while the holder is still paused: the lead has no call any more, so the
        // other dialer releases it and counts the call whose result it cannot know (Unknown), then
        // claims it again (the retry is due at once here) and dials it under a token of its own.
        const customer = h.sim.channels().find((c) => c.number === NUMBER && c.role === 'customer')
        t.ok(customer && h.sim.hangupChannel(customer.name), 'the customer hangs up')
        await h.until('the lost result counted', () =>
          lines.some((l) => String(l.msg).startsWith('released expired reservations') && l.counted === 1),
        )
        await h.until(
          'dialed again and settled by the other dialer',
          async () => (await h.lead('FE-1'))?.dial_status === 'Received',
        )
        const second = await h.lead('FE-1')
        t.match(second, { call_count: 2, isReserved: 0 }, 'both calls counted')
        t.not(second?.claim_token, token, 'a new claim, a new token')
        t.equal(h.sim.originateCount(), 2)
        t.equal(h.sim.maxConcurrentCallsTo(NUMBER), 1, 'never two calls to the customer at once')
        const counted = (await h.attempts('FE-1')).find((a) => a.linkedid === `hd-${id}-${token}`)
        t.match(
          counted,
          { outcome: 'Unknown', attempt_no: 1, superseded: 0 },
          'the lost call counted as Unknown',
        )
        t.match(await h.dialer.metrics.text(), /hold_dialer_dialer_lost_results_total 1\b/)

        // The paused dialer comes back with its call's real result: its row takes it (still counted
        // once), and the lead is left as the newer claim wrote it.
        paused.process.kill('SIGCONT')
        await h.until('the late result is logged with both tokens', () =>
          paused.output().includes('late result'),
        )
        const attempts = await h.attempts('FE-1')
        t.equal(attempts.length, 2, 'one attempt row for each call placed')
        t.match(
          attempts.find((a) => a.linkedid === `hd-${id}-${token}`),
          {
            dialer_id: 'paused-dialer',
            attempt_no: 1,
            superseded: 0,
            outcome: 'Received',
            phone_e164: first?.phone_e164,
          },
        )
        t.match(
          attempts.find((a) => a.linkedid !== `hd-${id}-${token}`),
          {
            dialer_id: 'dialer-test',
            attempt_no: 2,
            outcome: 'Received',
          },
        )
        t.match(await h.lead('FE-1'), { dial_status: 'Received', call_count: 2, isReserved: 0 })
        const logged = paused
          .output()
          .split('\n')
          .filter((l) => l.includes('late result'))
          .map((l) => JSON.parse(l) as Record<string, unknown>)[0]
        t.match(logged, { lead: id, token, leadToken: second?.claim_token, leadHolder: null })
        await paused.stop()
      },
    )
  }

  t.test(
    'a dialer killed mid-call whose call ends while it is down: the call is counted as an attempt with result Unknown, not dialed again at once',
    async (t) => {
      const h = await harness(t, database, { startDialer: false })
      await h.addAgent('4104')
      const NUMBER = '5553100004'
      h.sim.setOutcome(NUMBER, TALKS_ON)
      const child = childDialer(t, simTarget(h), database, 'killed-dialer')
      await child.ready()
      await pushAndAnswer(h, 'FE-4', NUMBER)
      await h.until('the answer noted on the open attempt row', async () =>
        (await h.attempts('FE-4')).some((a) => a.answered_at !== null),
      )
      const open = (await h.attempts('FE-4'))[0]
      await child.kill()
      const customer = h.sim.channels().find((c) => c.number === NUMBER && c.role === 'customer')
      t.ok(
        customer && h.sim.hangupChannel(customer.name),
        'the customer hangs up while nobody follows the call',
      )
      await child.restart()
      await child.ready()
      await h.until('the lost result counted', async () => (await h.lead('FE-4'))?.isReserved === 0)
      const row = await h.lead('FE-4')
      t.match(row, { dial_status: 'Not Connected', call_count: 1, last_dial_result: 'Unknown' })
      t.ok(row?.next_retry_at, 'retried on the schedule, not at once')
      t.match(await h.attempts('FE-4'), [
        { outcome: 'Unknown', attempt_no: 1, started_at: open?.started_at, answered_at: open?.answered_at },
      ])
      await h.until('reported', () => child.output().includes('counted as an attempt with result Unknown'))
      t.equal(h.sim.originateCount(), 1, 'not dialed again at once')
      await child.stop()
    },
  )

  t.test(
    'a call whose lead was claimed again under another token: its result is kept as a superseded attempt, the lead left alone',
    async (t) => {
      const h = await harness(t, database)
      await h.addAgent('4105')
      const NUMBER = '5553100005'
      h.sim.setOutcome(NUMBER, TALKS_ON)
      await h.push(lead('FE-5', NUMBER))
      await h.until('answered', () => h.sim.calls.some((c) => c.number === NUMBER && c.answeredAt !== null))
      const before = await h.lead('FE-5')
      // Another claim of the lead, as a dialer that released it and claimed it again would hold it.
      await database.handle.kysely
        .updateTable('hold_dialer_master_data')
        .set({ claim_token: 'ffffffff', reserved_by: 'another-dialer' })
        .where('oli_id', '=', 'FE-5')
        .execute()
      const customer = h.sim.channels().find((c) => c.number === NUMBER && c.role === 'customer')
      t.ok(customer && h.sim.hangupChannel(customer.name), 'the customer hangs up')
      await h.until('the late result written', async () =>
        (await h.attempts('FE-5')).some((a) => a.outcome !== 'Dialing'),
      )
      t.match(await h.attempts('FE-5'), [
        {
          superseded: 1,
          attempt_no: 0,
          outcome: 'Received',
          linkedid: `hd-${before?.id}-${before?.claim_token}`,
        },
      ])
      t.match(
        await h.lead('FE-5'),
        {
          dial_status: 'Calling',
          isReserved: 1,
          reserved_by: 'another-dialer',
          claim_token: 'ffffffff',
          call_count: 0,
        },
        'the lead left as the newer claim holds it',
      )
      t.match(await h.dialer.metrics.text(), /hold_dialer_dialer_late_results_total 1\b/)
    },
  )

  t.test(
    'a call that ends while a restarted dialer is adopting it is ended, not followed until its timeout',
    async (t) => {
      const { logger, lines } = memoryLogger()
      const h = await harness(t, database, { logger })
      await h.addAgent('4106')
      const NUMBER = '5553100006'
      h.sim.setOutcome(NUMBER, TALKS_ON)
      await h.push(lead('FE-6', NUMBER))
      await h.until('answered', () => h.sim.calls.some((c) => c.number === NUMBER && c.answeredAt !== null))
      // The customer hangs up just after the restarted dialer's channel list was taken, and its Hangup
      // events reach the dialer before it adopts the call: while nothing follows those channels.
      const list = AmiClient.prototype.listAction
      let hungUp = false
      AmiClient.prototype.listAction = async function (this: AmiClient, ...args: Parameters<typeof list>) {
        const result = await list.apply(this, args)
        const customer = h.sim.channels().find((c) => c.number === NUMBER && c.role === 'customer')
        if (!hungUp && args[0].action === 'CoreShowChannels' && customer) {
          hungUp = true
          const hangup = new Promise<void>((resolve) => {
            const seen = (e: AmiMessage) => {
              if (header(e, 'event') !== 'Hangup' || header(e, 'channel') !== customer.name) return
              this.off('event', seen)
              resolve()
            }
            this.on('event', seen)
          })
          h.sim.hangupChannel(customer.name)
          await hangup
        }
        return result
      }
      t.teardown(() => {
        AmiClient.prototype.listAction = list
      })
      await h.restartDialer()
      await h.until('adopted', () =>
        lines.some((l) => String(l.msg).startsWith('a call of a previous run is still live')),
      )
      t.ok(hungUp, 'the customer hung up between the list and the adoption')
      await h.until('the adopted call ended', async () => (await h.lead('FE-6'))?.isReserved === 0)
      t.match(await h.lead('FE-6'), { call_count: 1, isReserved: 0, reserved_by: null })
      t.notMatch(String((await h.lead('FE-6'))?.dial_status), /Calling/, 'settled')
      t.equal(h.sim.originateCount(), 1, 'not dialed again')
    },
  )

  // Last in the file: it leaves its lead reserved, as the rule it checks requires.
  t.test(
    "a restarted dialer adopts only its own claim's call, and keeps a lead whose call is live",
    async (t) => {
      const { logger, lines } = memoryLogger()
      const h = await harness(t, database, { logger })
      await h.addAgent('4102')
      const NUMBER = '5553100002'
      h.sim.setOutcome(NUMBER, TALKS_ON)
      await h.push(lead('FE-2', NUMBER))
      await h.until('answered', () => h.sim.calls.some((c) => c.number === NUMBER && c.answeredAt !== null))
      // The reservation now names another claim of the same lead (as a claim made again would).
      await database.handle.kysely
        .updateTable('hold_dialer_master_data')
        .set({ claim_token: 'ffffffff' })
        .where('oli_id', '=', 'FE-2')
        .execute()
      await h.restartDialer()
      await h.until('seen and left alone', () =>
        lines.some((l) => String(l.msg).startsWith('a call of this lead under another claim is live')),
      )
      t.notOk(
        lines.some((l) => String(l.msg).startsWith('a call of a previous run is still live')),
        'not adopted',
      )
      await h.dialer.claimRounds()
      t.match(
        await h.lead('FE-2'),
        { dial_status: 'Calling', isReserved: 1, claim_token: 'ffffffff' },
        'not released while its call is live',
      )
      t.equal(h.sim.originateCount(), 1, 'not dialed again')
    },
  )
})
