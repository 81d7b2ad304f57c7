import { forEachDialect } from '@hold-dialer/db/testing'
import pino from 'pino'
import { SMTPServer } from 'smtp-server'
import t from 'tap'
import { RnrMailer } from '../src/mail/rnr-mailer.js'
import { harness, lead } from './harness.js'

const PINNED = { CALLBACK_MODE: 'pinned', RETRY_SECONDS: '0', RETRY_PATTERN: '[3]', MAX_TRIES: '3' }

forEachDialect(t, async (t, database) => {
  t.test('only the pinned agent dials a pinned lead; it waits while that agent is paused', async (t) => {
    const h = await harness(t, database, { env: PINNED })
    const a = await h.addAgent('3001', { presence: 'paused' })
    await h.addAgent('3002')
    await h.push(lead('PIN-1', '5552000001', { agent_id: a }))
    await h.push(lead('FREE-1', '5552000002'))
    await h.until(
      'the unpinned lead is dialed by the other agent',
      async () => (await h.lead('FREE-1'))?.dial_status === 'Received',
    )
    await h.dialer.claimRounds()
    t.match(
      await h.lead('PIN-1'),
      { dial_status: 'Pending', isReserved: 0, agent_id: a },
      'waits for its agent',
    )
    await database.handle.kysely
      .updateTable('dialer_employee')
      .set({ presence: 'ready' })
      .where('id', '=', a)
      .execute()
    await h.until('dialed by its agent', async () => (await h.lead('PIN-1'))?.dial_status === 'Received')
    t.match((await h.attempts('PIN-1'))[0], { agent_extension: '3001', agent_id: a })
    t.match(await h.lead('PIN-1'), { agent_id: a }, 'pin kept on Received')
  })

  t.test('a failed originate restores a pinned lead with its pin', async (t) => {
    const h = await harness(t, database, { env: PINNED })
    const a = await h.addAgent('3005')
    h.sim.failNextOriginates(1)
    await h.push(lead('PIN-F', '5552000009', { agent_id: a }))
    await h.until('restored', () => h.dialer.stats.restored > 0)
    t.match(await h.lead('PIN-F'), { dial_status: 'Pending', isReserved: 0, call_count: 0, agent_id: a })
  })

  t.test("a pinned lead is first in its agent's queue", async (t) => {
    const h = await harness(t, database, { env: PINNED, startDialer: false })
    const a = await h.addAgent('3003')
    await h.push(lead('Q-FREE', '5552000003'))
    await h.push(lead('Q-PIN', '5552000004', { agent_id: a }))
    await h.startDialer()
    await h.until('both dialed', async () => h.dialer.stats.settled >= 2)
    const order = await database.handle.kysely
      .selectFrom('hold_dialer_call_attempts')
      .select('oli_id')
      .where('oli_id', 'like', 'Q-%')
      .orderBy('id')
      .execute()
    t.same(
      order.map((r) => r.oli_id),
      ['Q-PIN', 'Q-FREE'],
    )
  })

  t.test(
    'Not Connected keeps the pin and queues one RNR mail; max_tries sets Disposed on master',
    async (t) => {
      const h = await harness(t, database, { env: PINNED })
      const a = await h.addAgent('3004')
      h.sim.setOutcome('5552000005', { kind: 'noanswer', ringSeconds: 1 })
      await h.push(lead('RNR-1', '5552000005', { agent_id: a }))
      await h.until('Disposed after 3 tries', async () => (await h.lead('RNR-1'))?.dial_status === 'Disposed')
      const row = await h.lead('RNR-1')
      t.match(row, { agent_id: a, call_count: 3, isRnrSent: 1, isReserved: 0, next_retry_at: null })
      const archived = await database.handle.kysely
        .selectFrom('hold_dialer_disposed')
        .select('id')
        .where('oli_id', '=', 'RNR-1')
        .execute()
      t.equal(archived.length, 0, 'not moved to hold_dialer_disposed')
      const mails = await database.handle.kysely
        .selectFrom('hold_dialer_rnr_outbox')
        .selectAll()
        .where('oli_id', '=', 'RNR-1')
        .execute()
      t.equal(mails.length, 1, 'one RNR mail for the first Not Connected only')
      t.match(mails[0], { agent_id: a, to_address: '3004@example.test', sent_at: null })
      t.match(mails[0]?.subject, /RNR-1/)
      await h.dialer.claimRounds()
      t.equal((await h.attempts('RNR-1')).length, 3, 'never dialed again')
    },
  )

  t.test(
    'queued RNR mail is sent through SMTP and marked sent; a failing server keeps it queued',
    async (t) => {
      const received: string[] = []
      const smtp = new SMTPServer({
        authOptional: true,
        disabledCommands: ['STARTTLS'],
        onData(stream, _session, done) {
          let text = ''
          stream.on('data', (d: Buffer) => (text += d.toString()))
          stream.on('end', () => {
            received.push(text)
            done()
          })
        },
      })
      await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()))
      t.teardown(() => new Promise<void>((r) => smtp.close(() => r())))
      const port = (smtp.server.address() as { port: number }).port
      const db = database.handle.kysely
      await db
        .insertInto('hold_dialer_rnr_outbox')
        .values({
          master_id: 1,
          oli_id: 'MAIL-1',
          agent_id: null,
          to_address: 'sup@example.test',
          subject: 'RNR: lead MAIL-1 not reachable',
          body: 'Lead MAIL-1 was not reached.',
          created_at: '2026-11-23 06:00:00.000',
          attempts: 0,
          next_attempt_at: '2026-11-23 06:00:00.000',
          last_error: null,
          sent_at: null,
        })
        .execute()
      const logger = pino({ level: 'silent' })
      const now = () => new Date('2026-11-23T07:00:00.000Z')
      const broken = new RnrMailer({
        db,
        smtp: { url: 'smtp://127.0.0.1:1', from: 'd@example.test' },
        logger,
        now,
      })
      t.equal(await broken.sendDue(), 0)
      let row = await db
        .selectFrom('hold_dialer_rnr_outbox')
        .selectAll()
        .where('oli_id', '=', 'MAIL-1')
        .executeTakeFirstOrThrow()
      t.match(row, { attempts: 1, sent_at: null })
      t.ok(row.last_error)
      t.ok(row.next_attempt_at > '2026-11-23 06:00:00.000', 'retry later')
      await db
        .updateTable('hold_dialer_rnr_outbox')
        .set({ next_attempt_at: '2026-11-23 06:00:00.000' })
        .where('id', '=', row.id)
        .execute()
      const mailer = new RnrMailer({
        db,
        smtp: { url: `smtp://127.0.0.1:${port}`, from: 'dialer@example.test' },
        logger,
        now,
      })
      t.equal(await mailer.sendDue(), 1)
      row = await db
        .selectFrom('hold_dialer_rnr_outbox')
        .selectAll()
        .where('oli_id', '=', 'MAIL-1')
        .executeTakeFirstOrThrow()
      t.ok(row.sent_at)
      t.equal(received.length, 1)
      t.match(received[0], /Subject: RNR: lead MAIL-1 not reachable/)
      t.equal(await mailer.sendDue(), 0, 'sent once')
      await mailer.stop()
      await broken.stop()
    },
  )
})
