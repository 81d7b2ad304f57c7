import type { NewMasterRow } from '@hold-dialer/db'
import { fillPhoneIdentities } from '@hold-dialer/db'
import { forEachDialect } from '@hold-dialer/db/testing'
import { internationalForm, parseConfig, toDbTime } from '@hold-dialer/rules'
import t from 'tap'
import { claimLead, type LeadClaim } from '../src/claim/claim.js'
import { claimRules } from '../src/claim/rules.js'
import { readStoredZones } from '../src/sql/customer-zones.js'

// The calling rules at claim: each a lead that would have been claimed and is not, then is claimed
// at the first moment the rule allows. The claim takes its clock as `now`.

const NOW = new Date('2026-11-23T12:00:00.000Z')
const PAST = '2026-11-23 11:00:00.000'
const at = (ms: number) => new Date(NOW.getTime() + ms)

let serial = 0
function row(oli: string, phone: string, fields: Partial<NewMasterRow> = {}): NewMasterRow {
  serial += 1
  return {
    oli_id: oli,
    phone_number: phone.replace(/\D/g, ''),
    // As a push in a US centre stores it (DEFAULT_COUNTRY=US): the international form of the text.
    phone_e164: internationalForm(phone, 'US'),
    client_name: oli,
    form_type: 'hold',
    priority_id: 1,
    dial_status: 'Pending',
    call_count: 0,
    isReserved: 0,
    isRnrSent: 0,
    status: 1,
    // Older leads first: the push order is the claim order of Pending.
    push_date: toDbTime(new Date(Date.parse('2026-11-20T00:00:00Z') + serial * 1000)),
    created_at: PAST,
    ...fields,
  }
}

forEachDialect(t, async (t, database) => {
  const handle = database.handle
  const { kysely: db } = handle
  const agent = async (name: string) =>
    Number(
      (
        await db
          .insertInto('dialer_employee')
          .values({ name, extension: null, email: null, presence: 'ready' })
          .executeTakeFirstOrThrow()
      ).insertId,
    )
  const claim = (agentId: number | null, fields: Partial<LeadClaim> = {}) =>
    claimLead(handle, {
      agentId,
      dialerId: 'd1',
      now: NOW,
      inHours: true,
      dialablePriorities: [1, 2, 8],
      pinnedAgentId: null,
      ...fields,
    })
  const master = (oli: string) =>
    db.selectFrom('hold_dialer_master_data').selectAll().where('oli_id', '=', oli).executeTakeFirst()
  const disposed = (oli: string) =>
    db.selectFrom('hold_dialer_disposed').selectAll().where('oli_id', '=', oli).execute()
  const onCall = async (id: number) =>
    (
      await db
        .selectFrom('dialer_employee')
        .select('on_call_by')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).on_call_by
  const list = (digits: string, expires: Date | null = null) =>
    db
      .insertInto('hold_dialer_dnc')
      .values({ digits, source: 'test', added_at: PAST, expires_at: expires && toDbTime(expires) })
      .execute()
  const attempt = (phone: string, startedAt: Date, endedAt: Date) =>
    db
      .insertInto('hold_dialer_call_attempts')
      .values({
        master_id: 0,
        oli_id: 'earlier',
        attempt_no: 1,
        dialer_id: 'd1',
        dial_mode: 'progressive',
        agent_id: null,
        agent_extension: null,
        phone_number: phone.replace(/\D/g, ''),
        phone_e164: internationalForm(phone, 'US'),
        action_id: null,
        uniqueid: null,
        linkedid: null,
        outcome: 'Not Connected',
        ami_dial_status: 'BUSY',
        originate_reason: null,
        hangup_cause: 17,
        hangup_cause_txt: null,
        hangup_by: null,
        started_at: toDbTime(startedAt),
        answered_at: null,
        ended_at: toDbTime(endedAt),
        talk_seconds: null,
      })
      .execute()
  /** Puts every live lead out of the way, so each test sees only its own. */
  const clear = () => db.updateTable('hold_dialer_master_data').set({ dial_status: 'Received' }).execute()

  t.test('do-not-call, pool: a listed lead is archived as dnc, never dialed; the next lead is', async (t) => {
    await clear()
    await list('5551000001')
    await db
      .insertInto('hold_dialer_master_data')
      .values([row('DNC-A', '5551000001'), row('DNC-B', '5551000002')])
      .execute()
    const a = await agent('dnc-pool')
    t.match(await claim(a, { callbackMode: 'pool' }), { oli_id: 'DNC-B' }, 'the unlisted lead is dialed')
    t.equal(await master('DNC-A'), undefined, 'the listed lead left master')
    t.match(await disposed('DNC-A'), [
      { disposed_reason: 'dnc', dial_status: 'Archived', last_dial_result: 'DNC', call_count: 0 },
    ])
    t.equal(await onCall(a), 'd1')
  })

  t.test('do-not-call, pool: only listed leads due: they are ended, the agent is left free', async (t) => {
    await clear()
    await list('5551000003')
    await db
      .insertInto('hold_dialer_master_data')
      .values([
        row('DNC-C', '5551000003'),
        row('DNC-D', '5551000003', { dial_status: 'Not Connected', next_retry_at: PAST, call_count: 1 }),
      ])
      .execute()
    const a = await agent('dnc-free')
    t.equal(await claim(a, { callbackMode: 'pool' }), undefined)
    t.equal(await onCall(a), null, 'no lead: the agent is free')
    t.equal(await master('DNC-C'), undefined)
    t.equal(await master('DNC-D'), undefined)
    t.equal((await disposed('DNC-C')).length + (await disposed('DNC-D')).length, 2, 'both archived, and kept')
  })

  t.test('do-not-call, pinned: Disposed and kept on master; dialed after the entry expires', async (t) => {
    await clear()
    const expires = at(3600_000)
    await list('5551000004', expires)
    const a = await agent('dnc-pinned')
    await db
      .insertInto('hold_dialer_master_data')
      .values([row('DNC-E', '5551000004', { agent_id: a })])
      .execute()
    t.equal(await claim(a, { pinnedAgentId: a, callbackMode: 'pinned' }), undefined)
    t.match(await master('DNC-E'), { dial_status: 'Disposed', last_dial_result: 'DNC', isReserved: 0 })
    t.equal(await onCall(a), null)
    // The same number pushed again under another lead: still listed until the expiry, then dialed.
    await db
      .insertInto('hold_dialer_master_data')
      .values([row('DNC-F', '5551000004', { agent_id: a })])
      .execute()
    t.equal(
      await claim(a, { pinnedAgentId: a, callbackMode: 'pinned', now: at(3599_999) }),
      undefined,
      'a millisecond before the expiry it is still listed',
    )
    t.match(await master('DNC-F'), { dial_status: 'Disposed' })
    await db
      .updateTable('hold_dialer_master_data')
      .set({ dial_status: 'Pending', last_dial_result: null })
      .where('oli_id', '=', 'DNC-F')
      .execute()
    t.match(
      await claim(a, { pinnedAgentId: a, callbackMode: 'pinned', now: at(3600_000) }),
      { oli_id: 'DNC-F' },
      'pushed again, it is dialed from the expiry on',
    )
  })

  t.test('do-not-call, predictive pinned pool (no agent): Disposed, not archived', async (t) => {
    await clear()
    await list('5551000005')
    await db
      .insertInto('hold_dialer_master_data')
      .values([row('DNC-G', '5551000005'), row('DNC-H', '5551000006')])
      .execute()
    t.match(await claim(null, { unpinnedOnly: true, callbackMode: 'pinned' }), { oli_id: 'DNC-H' })
    t.match(await master('DNC-G'), { dial_status: 'Disposed', last_dial_result: 'DNC' })
    t.same(await disposed('DNC-G'), [])
  })

  t.test(
    'per-number gap: a number called minutes ago waits; other leads go first; then it is dialed',
    async (t) => {
      await clear()
      await attempt('5552000001', at(-400_000), at(-300_000))
      await db
        .insertInto('hold_dialer_master_data')
        .values([row('GAP-A', '5552000001'), row('GAP-B', '5552000002')])
        .execute()
      const caps = (now: Date) => ({
        now,
        numberCaps: { lastEndedBefore: new Date(now.getTime() - 600_000) },
      })
      t.match(await claim(null, caps(NOW)), { oli_id: 'GAP-B' }, 'ended 5 minutes ago: skipped')
      t.equal(
        await claim(null, caps(at(299_999))),
        undefined,
        'a millisecond before the 10 minutes: still not',
      )
      t.match(await claim(null, caps(at(300_000))), { oli_id: 'GAP-A' }, '10 minutes after the call ended')
      t.match(await claim(null), undefined, 'without caps nothing else is due either')
    },
  )

  t.test('per-number: two leads of one number are never dialed at once', async (t) => {
    await clear()
    await db
      .insertInto('hold_dialer_master_data')
      .values([row('DUP-A', '5552000003'), row('DUP-B', '5552000003'), row('DUP-C', '5552000004')])
      .execute()
    const caps = { numberCaps: { lastEndedBefore: at(-60_000) } }
    t.match(await claim(null, caps), { oli_id: 'DUP-A' })
    t.match(await claim(null, caps), { oli_id: 'DUP-C' }, 'DUP-B waits: its number is being dialed')
    t.equal(await claim(null, caps), undefined)
    t.match(await claim(null), { oli_id: 'DUP-B' }, 'without the caps it would have been dialed')
  })

  t.test(
    'per-number: one person written two ways is one number, on the line and in the day cap',
    async (t) => {
      await clear()
      await db
        .insertInto('hold_dialer_master_data')
        .values([row('SP-A', '+1 212 555 0202'), row('SP-B', '212-555-0202'), row('SP-C', '(212) 555-0203')])
        .execute()
      const caps = { numberCaps: { lastEndedBefore: at(-60_000) } }
      t.match(await claim(null, caps), { oli_id: 'SP-A' })
      t.match(await claim(null, caps), { oli_id: 'SP-C' }, 'SP-B waits: its person is being dialed as SP-A')
      t.equal(await claim(null, caps), undefined)
      await clear()
      // Two calls today to +1 212 555 0204 as stored digits 12125550204; the lead spells it nationally.
      await attempt('+1 212 555 0204', at(-7200_000), at(-7190_000))
      await attempt('1 (212) 555-0204', at(-3600_000), at(-3590_000))
      await db
        .insertInto('hold_dialer_master_data')
        .values([row('SP-D', '2125550204')])
        .execute()
      const dayCap = { numberCaps: { perDay: { since: new Date('2026-11-23T00:00:00Z'), max: 2 } } }
      t.equal(await claim(null, dayCap), undefined, 'two calls today to this person, however written')
      t.match(
        await claim(null, { numberCaps: { perDay: { since: new Date('2026-11-23T00:00:00Z'), max: 3 } } }),
        { oli_id: 'SP-D' },
      )
    },
  )

  t.test(
    'do-not-call by person: a listed person is not dialed however either side wrote the number',
    async (t) => {
      await clear()
      const listPerson = (raw: string) =>
        db
          .insertInto('hold_dialer_dnc')
          .values({
            digits: internationalForm(raw, 'US').slice(1),
            e164: internationalForm(raw, 'US'),
            source: 'test',
            added_at: PAST,
            expires_at: null,
          })
          .execute()
      await listPerson('+1 (212) 555-0101')
      await listPerson('2125550102')
      await listPerson('+36 1 234 5201')
      await db
        .insertInto('hold_dialer_master_data')
        .values([
          row('PD-A', '2125550101'),
          row('PD-B', '+1 212 555 0102'),
          row('PD-C', '0036 1 234 5201'),
          row('PD-D', '3612345201'),
        ])
        .execute()
      t.match(
        await claim(null),
        { oli_id: 'PD-D' },
        'only the Texas number, which is not the Budapest one, is dialed',
      )
      for (const oli of ['PD-A', 'PD-B', 'PD-C']) {
        t.match(
          await disposed(oli),
          [{ disposed_reason: 'dnc', last_dial_result: 'DNC' }],
          `${oli}: ended as listed`,
        )
      }
    },
  )

  t.test(
    'a number that cannot be read is never dialed: ended, archived in pool mode, Disposed pinned',
    async (t) => {
      await clear()
      await db
        .insertInto('hold_dialer_master_data')
        .values([row('UN-A', '123456789012345'), row('UN-B', '2125550301')])
        .execute()
      t.match(await claim(null, { callbackMode: 'pool' }), { oli_id: 'UN-B' })
      t.match(await disposed('UN-A'), [
        {
          disposed_reason: 'unreadable_number',
          dial_status: 'Archived',
          last_dial_result: 'UNREADABLE_NUMBER',
          call_count: 0,
          phone_e164: '',
        },
      ])
      const a = await agent('unreadable-pinned')
      await db
        .insertInto('hold_dialer_master_data')
        .values([row('UN-C', '0000000000', { agent_id: a })])
        .execute()
      t.equal(await claim(a, { pinnedAgentId: a, onlyMine: true, callbackMode: 'pinned' }), undefined)
      t.match(await master('UN-C'), {
        dial_status: 'Disposed',
        last_dial_result: 'UNREADABLE_NUMBER',
        isReserved: 0,
      })
    },
  )

  t.test(
    'a lead stored before the international form waits for the fill, then is matched as a person',
    async (t) => {
      await clear()
      await list('12125550401')
      await db
        .insertInto('hold_dialer_master_data')
        .values([
          row('OLD-A', '2125550401', { phone_e164: null, customer_tz: null }),
          row('OLD-B', '919876543210', { phone_e164: null, customer_tz: null }),
        ])
        .execute()
      t.equal(await claim(null), undefined, 'not dialed while its form is unknown')
      const filled = await fillPhoneIdentities(db, { country: 'US', fallbackZone: 'America/Chicago' }, 10)
      t.ok(filled.leads >= 2 && filled.dnc >= 1, 'leads and the old entry filled')
      t.match(await master('OLD-B'), { phone_e164: '+919876543210', customer_tz: 'Asia/Calcutta' })
      t.match(await claim(null), { oli_id: 'OLD-B' }, 'then dialed')
      t.match(
        await disposed('OLD-A'),
        [{ disposed_reason: 'dnc' }],
        'the old entry 12125550401 matches 2125550401 now',
      )
      t.same(
        await fillPhoneIdentities(db, { country: 'US', fallbackZone: 'UTC' }, 10),
        { leads: 0, dnc: 0, attempts: 0 },
        'nothing left',
      )
    },
  )

  t.test('per-number day cap: the third call of the day waits for the next day', async (t) => {
    await clear()
    await attempt('5552000005', at(-7200_000), at(-7190_000))
    await attempt('5552000005', at(-3600_000), at(-3590_000))
    await attempt('5552000005', at(-86_400_000), at(-86_390_000))
    await db
      .insertInto('hold_dialer_master_data')
      .values([row('DAY-A', '5552000005'), row('DAY-B', '5552000006', { agent_id: null })])
      .execute()
    const a = await agent('day-cap')
    const dayStart = new Date('2026-11-23T00:00:00Z')
    const caps = (since: Date, now = NOW) => ({ now, numberCaps: { perDay: { since, max: 2 } } })
    t.match(await claim(a, { pinnedAgentId: a, ...caps(dayStart) }), { oli_id: 'DAY-B' })
    const b = await agent('day-cap-2')
    t.equal(await claim(b, { pinnedAgentId: b, ...caps(dayStart) }), undefined, 'two calls today: capped')
    t.equal(await onCall(b), null)
    t.match(
      await claim(b, {
        pinnedAgentId: b,
        ...caps(new Date('2026-11-24T00:00:00Z'), new Date('2026-11-24T00:00:00Z')),
      }),
      { oli_id: 'DAY-A' },
      'dialed from the next day on',
    )
  })

  t.test(
    'pinned fallback: another agent takes a lead its own agent has not taken for the minutes set',
    async (t) => {
      await clear()
      // Working hours 09:00-18:00 UTC; the lead was pushed at 10:00 and its agent is away.
      const config = (minutes: number) =>
        parseConfig(
          {
            CALLBACK_MODE: 'pinned',
            TIMEZONE: 'UTC',
            PINNED_FALLBACK_MINUTES: String(minutes),
            CALLING_HOURS: 'off',
          },
          { hostZone: 'UTC' },
        )
      const away = await agent('fallback-away')
      const other = await agent('fallback-other')
      await db
        .insertInto('hold_dialer_master_data')
        .values([row('FB-A', '5553000001', { agent_id: away, push_date: '2026-11-23 10:00:00.000' })])
        .execute()
      const claimAt = (iso: string, minutes: number, fields: Partial<LeadClaim> = {}) => {
        const now = new Date(iso)
        return claim(other, {
          now,
          pinnedAgentId: other,
          callbackMode: 'pinned',
          ...claimRules(config(minutes), now),
          ...fields,
        })
      }
      t.equal(
        await claimAt('2026-11-24T10:00:00Z', 0),
        undefined,
        'off (the default): never, even a day later',
      )
      t.equal(await claimAt('2026-11-23T10:29:59.999Z', 30), undefined, 'not before 30 minutes')
      t.equal(await onCall(other), null)
      t.match(await claimAt('2026-11-23T10:30:00Z', 30), { oli_id: 'FB-A', agent_id: away }, 'at 30 minutes')
      t.match(await master('FB-A'), { agent_id: away, dial_status: 'Calling' }, 'the pin is kept')
    },
  )

  t.test('pinned fallback longer than a working day runs on into the next day', async (t) => {
    await clear()
    const config = parseConfig(
      { CALLBACK_MODE: 'pinned', TIMEZONE: 'UTC', PINNED_FALLBACK_MINUTES: '600', CALLING_HOURS: 'off' },
      { hostZone: 'UTC' },
    )
    const away = await agent('fb-long-away')
    await db
      .insertInto('hold_dialer_master_data')
      .values([row('FB-LONG', '5553000004', { agent_id: away, push_date: '2026-11-23 09:00:00.000' })])
      .execute()
    const pool = (iso: string) => {
      const now = new Date(iso)
      return claim(null, {
        now,
        inHours: true,
        unpinnedOnly: true,
        callbackMode: 'pinned',
        ...claimRules(config, now),
      })
    }
    t.equal(await pool('2026-11-23T17:59:59Z'), undefined, 'a whole working day (540 minutes) is not 600')
    t.equal(await pool('2026-11-24T09:59:59.999Z'), undefined)
    t.match(
      await pool('2026-11-24T10:00:00Z'),
      { oli_id: 'FB-LONG', agent_id: away },
      '540 + 60 working minutes',
    )
  })

  t.test(
    'pinned fallback counts working time only for Pending; a callback counts from its time',
    async (t) => {
      await clear()
      const config = parseConfig(
        { CALLBACK_MODE: 'pinned', TIMEZONE: 'UTC', PINNED_FALLBACK_MINUTES: '30', CALLING_HOURS: 'off' },
        { hostZone: 'UTC' },
      )
      const away = await agent('fb-night-away')
      await db
        .insertInto('hold_dialer_master_data')
        .values([
          row('FB-NIGHT', '5553000002', { agent_id: away, push_date: '2026-11-22 17:55:00.000' }),
          row('FB-CB', '5553000003', {
            agent_id: away,
            priority_id: 2,
            dial_status: 'Callback',
            callback_scheduled_at: '2026-11-23 20:00:00.000',
          }),
        ])
        .execute()
      const pool = (iso: string, inHours: boolean) => {
        const now = new Date(iso)
        // Predictive pinned mode's overdial pool: no agent, never a pinned lead but an overdue one.
        return claim(null, {
          now,
          inHours,
          unpinnedOnly: true,
          callbackMode: 'pinned',
          ...claimRules(config, now),
        })
      }
      t.equal(
        await pool('2026-11-23T09:00:00Z', true),
        undefined,
        'waited overnight, but not 30 working minutes',
      )
      t.equal(await pool('2026-11-23T09:24:59.999Z', true), undefined)
      t.match(
        await pool('2026-11-23T09:25:00Z', true),
        { oli_id: 'FB-NIGHT' },
        '30 working minutes: 5 before 18:00 the day before, 25 after WORK_START',
      )
      t.equal(await pool('2026-11-23T20:29:59.999Z', false), undefined, 'the callback, out of hours, not yet')
      t.match(
        await pool('2026-11-23T20:30:00Z', false),
        { oli_id: 'FB-CB', agent_id: away },
        '30 minutes after its time',
      )
    },
  )

  t.test("customer's calling hours: a lead is claimed from 08:00 on its own clock, across DST", async (t) => {
    await clear()
    // The centre is in Kolkata and open all day; its customers are in New York, both US coasts, India.
    const config = parseConfig(
      { TIMEZONE: 'Asia/Kolkata', WORK_START: '00:00', WORK_END: '23:59', CALLBACK_MODE: 'pinned' },
      { hostZone: 'UTC' },
    )
    const a = await agent('local-hours')
    await db
      .insertInto('hold_dialer_master_data')
      .values([
        row('TZ-NY', '12125550100', { customer_tz: 'America/New_York' }),
        row('TZ-BOTH', '18005550100', { customer_tz: 'America/Los_Angeles America/New_York' }),
        row('TZ-CB', '13105550100', {
          customer_tz: 'America/Los_Angeles',
          priority_id: 2,
          dial_status: 'Callback',
          callback_scheduled_at: '2026-03-08 10:00:00.000',
        }),
      ])
      .execute()
    const stored = await readStoredZones(db)
    const claimAt = (iso: string, inHours = true) => {
      const now = new Date(iso)
      return claim(a, {
        now,
        inHours,
        pinnedAgentId: a,
        callbackMode: 'pinned',
        ...claimRules(config, now, stored),
      })
    }
    // 2026-03-08, New York springs forward at 07:00 UTC: 08:00 EDT is 12:00 UTC (13:00 the day before).
    t.equal(await claimAt('2026-03-07T12:30:00Z'), undefined, '07:30 EST: nobody')
    t.equal(
      await claimAt('2026-03-08T11:59:59.999Z'),
      undefined,
      '07:59 EDT: nobody, not even the due callback',
    )
    t.equal(
      await claimAt('2026-03-08T12:00:00Z', false),
      undefined,
      'the callback is on Los Angeles time: 05:00',
    )
    t.match(await claimAt('2026-03-08T12:00:00Z'), { oli_id: 'TZ-NY' }, '08:00 EDT: New York')
    t.equal(await onCall(a), 'd1')
    await db.updateTable('dialer_employee').set({ on_call_by: null }).where('id', '=', a).execute()
    t.equal(await claimAt('2026-03-08T14:59:59.999Z'), undefined, 'both coasts: 07:59 in Los Angeles')
    t.match(
      await claimAt('2026-03-08T15:00:00Z', false),
      { oli_id: 'TZ-CB' },
      'the callback at 08:00 in Los Angeles, outside the centre hours (inHours false)',
    )
    await db.updateTable('dialer_employee').set({ on_call_by: null }).where('id', '=', a).execute()
    t.match(
      await claimAt('2026-03-08T15:00:00Z'),
      { oli_id: 'TZ-BOTH' },
      '08:00 in Los Angeles, 11:00 in New York',
    )
  })

  t.test("customer's calling hours: a zone value not read yet waits for the next read", async (t) => {
    await clear()
    const config = parseConfig(
      { TIMEZONE: 'UTC', WORK_START: '00:00', WORK_END: '23:59' },
      { hostZone: 'UTC' },
    )
    const stored = await readStoredZones(db)
    await db
      .insertInto('hold_dialer_master_data')
      .values([row('TZ-NEW', '+49 151 23456789', { customer_tz: 'Europe/Berlin' })])
      .execute()
    const now = new Date('2026-03-09T12:00:00Z')
    t.equal(await claim(null, { now, ...claimRules(config, now, stored) }), undefined)
    t.match(await claim(null, { now, ...claimRules(config, now, await readStoredZones(db)) }), {
      oli_id: 'TZ-NEW',
    })
  })
})
