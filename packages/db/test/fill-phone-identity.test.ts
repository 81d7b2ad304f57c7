import t from 'tap'
import {
  fillArchivedIdentities,
  fillAttemptIdentities,
  fillDncIdentities,
  fillLeadIdentities,
  fillPhoneIdentities,
} from '../src/index.js'
import { writeLeadForms } from '../src/queries/fill-phone-identity.js'
import { forEachDialect, storedLeadWithoutForm } from '../src/testing/index.js'

const STAMP = '2026-01-05 10:00:00.000'
const US = { country: 'US', fallbackZone: 'America/Chicago' }

/** A lead as an API of an earlier version stored it: digits only, no international form. */
const lead = (n: number, phone: string) => storedLeadWithoutForm(`fill-${n}`, phone, STAMP)

forEachDialect(t, async (t, database) => {
  const { kysely: db } = database.handle
  const leadForm = async (oli: string) =>
    db
      .selectFrom('hold_dialer_master_data')
      .select(['phone_e164', 'customer_tz', 'phone_number'])
      .where('oli_id', '=', oli)
      .executeTakeFirstOrThrow()

  t.test('leads: national, with a country code, unreadable; pushed ones are not touched', async (t) => {
    await db
      .insertInto('hold_dialer_master_data')
      .values([
        lead(1, '2125550101'),
        lead(2, '442079460303'),
        lead(3, '919876543210'),
        lead(4, '12345'),
        { ...lead(5, '2125550102'), phone_e164: '+12125550199', customer_tz: 'America/New_York' },
      ])
      .execute()
    const first = await fillLeadIdentities(db, US, 3)
    t.equal(first, 3, 'at most the limit')
    const second = await fillLeadIdentities(db, US, 3)
    t.equal(second, 1, 'the rest: fewer than the limit means none is left')
    t.equal(await fillLeadIdentities(db, US, 3), 0)
    t.same(await leadForm('fill-1'), {
      phone_e164: '+12125550101',
      customer_tz: 'America/New_York',
      phone_number: '2125550101',
    })
    t.match(await leadForm('fill-2'), { phone_e164: '+442079460303', customer_tz: 'Europe/London' })
    t.match(await leadForm('fill-3'), { phone_e164: '+919876543210', customer_tz: 'Asia/Calcutta' })
    t.match(await leadForm('fill-4'), { phone_e164: '', customer_tz: 'America/Chicago' }, 'TIMEZONE')
    t.match(
      await leadForm('fill-5'),
      { phone_e164: '+12125550199', customer_tz: 'America/New_York' },
      'a form worked out at push stays',
    )
  })

  t.test('a lead whose digits changed since they were read is not written', async (t) => {
    await db.insertInto('hold_dialer_master_data').values(lead(10, '2125550110')).execute()
    const { id } = await db
      .selectFrom('hold_dialer_master_data')
      .select('id')
      .where('oli_id', '=', 'fill-10')
      .executeTakeFirstOrThrow()
    // Read as 2125550110, then pushed again with another number before the write.
    await db
      .updateTable('hold_dialer_master_data')
      .set({ phone_number: '3125550110' })
      .where('id', '=', id)
      .execute()
    await writeLeadForms(db, 'hold_dialer_master_data', [{ id, phone_number: '2125550110' }], US)
    t.match(await leadForm('fill-10'), { phone_e164: null, customer_tz: null })
    await writeLeadForms(db, 'hold_dialer_master_data', [{ id, phone_number: '3125550110' }], US)
    t.match(await leadForm('fill-10'), { phone_e164: '+13125550110', customer_tz: 'America/Chicago' })
    await writeLeadForms(db, 'hold_dialer_master_data', [], US)
  })

  t.test('do-not-call entries, call attempts and the archive', async (t) => {
    await db
      .insertInto('hold_dialer_dnc')
      .values([
        { digits: '2125550120', e164: null, source: null, added_at: STAMP, expires_at: null },
        { digits: '3612345201', e164: null, source: null, added_at: STAMP, expires_at: null },
        { digits: '442079460303', e164: null, source: null, added_at: STAMP, expires_at: null },
        { digits: '99999', e164: null, source: null, added_at: STAMP, expires_at: null },
      ])
      .execute()
    const attempt = (phone_number: string) => ({
      master_id: 1,
      oli_id: 'fill-1',
      attempt_no: 1,
      dialer_id: 'd',
      dial_mode: 'progressive' as const,
      agent_id: null,
      agent_extension: null,
      phone_number,
      phone_e164: null,
      action_id: null,
      uniqueid: null,
      linkedid: null,
      outcome: 'no_answer',
      ami_dial_status: null,
      originate_reason: null,
      hangup_cause: null,
      hangup_cause_txt: null,
      hangup_by: null,
      started_at: STAMP,
      answered_at: null,
      ended_at: STAMP,
      talk_seconds: null,
    })
    await db
      .insertInto('hold_dialer_call_attempts')
      .values([attempt('2125550101'), attempt('2125550101'), attempt('919876543210')])
      .execute()
    const archived = (n: number, phone_number: string) => ({
      ...lead(100 + n, phone_number),
      master_id: 100 + n,
      disposed_at: STAMP,
      disposed_reason: 'max_tries' as const,
    })
    await db
      .insertInto('hold_dialer_disposed')
      .values([
        archived(1, '2125550130'),
        { ...archived(2, '2125550131'), phone_e164: '+12125550131', customer_tz: 'America/New_York' },
        archived(3, '442079460304'),
        archived(4, '4'),
      ])
      .execute()

    t.same(await fillPhoneIdentities(db, US, 100), { leads: 0, dnc: 4, attempts: 3 })
    const dnc = await db.selectFrom('hold_dialer_dnc').select(['digits', 'e164']).orderBy('digits').execute()
    t.same(dnc, [
      { digits: '2125550120', e164: '+12125550120' },
      { digits: '3612345201', e164: '+13612345201' },
      { digits: '442079460303', e164: '+442079460303' },
      { digits: '99999', e164: '' },
    ])
    const calls = await db
      .selectFrom('hold_dialer_call_attempts')
      .select('phone_e164')
      .orderBy('id')
      .execute()
    t.same(
      calls.map((c) => c.phone_e164),
      ['+12125550101', '+12125550101', '+919876543210'],
    )
    t.equal(await fillDncIdentities(db, US, 100), 0)
    t.equal(await fillAttemptIdentities(db, US, 100), 0)

    const page1 = await fillArchivedIdentities(db, US, 2)
    t.equal(page1.rows, 2)
    const page2 = await fillArchivedIdentities(db, US, 2, page1.lastId)
    t.equal(page2.rows, 1, 'the row filled at push is skipped')
    const page3 = await fillArchivedIdentities(db, US, 2, page2.lastId)
    t.same(page3, { rows: 0, lastId: page2.lastId })
    const rows = await db
      .selectFrom('hold_dialer_disposed')
      .select(['phone_e164', 'customer_tz'])
      .orderBy('id')
      .execute()
    t.same(rows, [
      { phone_e164: '+12125550130', customer_tz: 'America/New_York' },
      { phone_e164: '+12125550131', customer_tz: 'America/New_York' },
      { phone_e164: '+442079460304', customer_tz: 'Europe/London' },
      { phone_e164: '', customer_tz: 'America/Chicago' },
    ])
  })
})
