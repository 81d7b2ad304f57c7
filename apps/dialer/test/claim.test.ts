import { connect, type NewMasterRow } from '@hold-dialer/db'
import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { claimLead, DueProbeMemo, type LeadClaim } from '../src/claim/claim.js'

const NOW = new Date('2026-11-23T12:00:00.000Z')
const PAST = '2026-11-23 11:00:00.000'

function row(oli: string, fields: Partial<NewMasterRow> = {}): NewMasterRow {
  return {
    oli_id: oli,
    phone_number: `555${String(oli.length).padStart(3, '0')}${oli.replace(/\D/g, '').padStart(4, '0')}`,
    phone_e164: `+1555${String(oli.length).padStart(3, '0')}${oli.replace(/\D/g, '').padStart(4, '0')}`,
    client_name: oli,
    form_type: 'hold',
    priority_id: 1,
    dial_status: 'Pending',
    call_count: 0,
    isReserved: 0,
    isRnrSent: 0,
    status: 1,
    push_date: PAST,
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
  const base = (): LeadClaim => ({
    agentId: null,
    dialerId: 'd1',
    now: NOW,
    inHours: true,
    dialablePriorities: [1, 2, 8],
    pinnedAgentId: null,
  })
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
  const onCall = async (id: number) =>
    (
      await db
        .selectFrom('dialer_employee')
        .select('on_call_by')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).on_call_by
  const reserved = async () =>
    (
      await db
        .selectFrom('hold_dialer_master_data')
        .select('oli_id')
        .where('isReserved', '=', 1)
        .orderBy('oli_id')
        .execute()
    ).map((r) => r.oli_id)

  t.test(
    'claims in order, takes the agent with the lead, and leaves the agent free when none is due',
    async (t) => {
      await db
        .insertInto('hold_dialer_master_data')
        .values([
          row('A-PENDING', { push_date: '2026-11-20 00:00:00.000' }),
          row('A-RETRY', { dial_status: 'Not Connected', next_retry_at: PAST, call_count: 1 }),
          row('A-CALLBACK', { priority_id: 2, dial_status: 'Callback', callback_scheduled_at: PAST }),
        ])
        .execute()
      const a = await agent('order')
      const first = await claim(a)
      t.match(first, { oli_id: 'A-CALLBACK', previous_status: 'Callback', priority_id: 2 })
      t.equal(await onCall(a), 'd1', 'the agent is taken with the lead')
      t.equal(await claim(a), undefined, 'an agent already on a call gets no lead')
      t.same(await reserved(), ['A-CALLBACK'])
      t.match(await claim(null), { oli_id: 'A-RETRY', previous_status: 'Not Connected', call_count: 1 })
      t.match(await claim(null), { oli_id: 'A-PENDING', previous_status: 'Pending' })
      const b = await agent('none-due')
      t.equal(await claim(b), undefined)
      t.equal(await onCall(b), null, 'no lead: the agent is left free')
      const row1 = await db
        .selectFrom('hold_dialer_master_data')
        .select(['dial_status', 'reserved_by', 'reserved_at'])
        .where('oli_id', '=', 'A-CALLBACK')
        .executeTakeFirstOrThrow()
      t.same(row1, { dial_status: 'Calling', reserved_by: 'd1', reserved_at: '2026-11-23 12:00:00.000' })
    },
  )

  if (database.dialect === 'mysql') {
    t.test('a due retry another transaction holds is skipped: the claim falls back to Pending', async (t) => {
      await db
        .insertInto('hold_dialer_master_data')
        .values([
          row('B-PENDING'),
          row('B-RETRY', { dial_status: 'Not Connected', next_retry_at: PAST, call_count: 1 }),
        ])
        .execute()
      const other = connect(database.url, { poolSize: 1 })
      t.teardown(() => other.close())
      let release!: () => void
      const held = new Promise<void>((r) => {
        release = r
      })
      let locked!: () => void
      const isLocked = new Promise<void>((r) => {
        locked = r
      })
      const holder = other.kysely.transaction().execute(async (trx) => {
        await trx
          .selectFrom('hold_dialer_master_data')
          .select('id')
          .where('oli_id', '=', 'B-RETRY')
          .forUpdate()
          .execute()
        locked()
        await held
      })
      await isLocked
      const a = await agent('fallback')
      t.match(await claim(a), { oli_id: 'B-PENDING' }, 'the retry is seen, found locked, and skipped')
      release()
      await holder
      t.match(await claim(null), { oli_id: 'B-RETRY' }, 'and claimed once it is free')
    })
  }

  t.test(
    'a probe that found nothing due stands for the next claims of its shape for the memo time',
    async (t) => {
      await db.deleteFrom('hold_dialer_master_data').execute()
      await db
        .insertInto('hold_dialer_master_data')
        .values(
          ['M-P1', 'M-P2', 'M-P3', 'M-P4'].map((oli, i) =>
            row(oli, { push_date: `2026-11-2${i} 00:00:00.000` }),
          ),
        )
        .execute()
      const callback = (oli: string) =>
        db
          .insertInto('hold_dialer_master_data')
          .values(row(oli, { dial_status: 'Callback', callback_scheduled_at: PAST }))
          .execute()
      // The memo's monotonic clock follows the claims' clock here, so a slow machine cannot end it early.
      let elapsed = 0
      const memo = new DueProbeMemo(1000, () => elapsed)
      const at = (ms: number) => {
        elapsed = ms
        return { now: new Date(NOW.getTime() + ms) }
      }
      t.match(await claimLead(handle, { ...base(), ...at(0) }, memo), { oli_id: 'M-P1' })
      await callback('M-CB1')
      t.match(
        await claimLead(handle, { ...base(), ...at(100) }, memo),
        { oli_id: 'M-P2' },
        'the due callback is read up to a second late',
      )
      t.match(
        await claimLead(handle, { ...base(), ...at(1100) }, memo),
        { oli_id: 'M-CB1' },
        'a second later it is',
      )
      await callback('M-CB2')
      t.match(
        await claimLead(handle, { ...base(), ...at(1200) }, memo),
        { oli_id: 'M-CB2' },
        'a probe that found something is not remembered',
      )
      t.match(await claimLead(handle, { ...base(), ...at(1300) }, memo), { oli_id: 'M-P3' })
      await callback('M-CB3')
      memo.forget()
      t.match(
        await claimLead(handle, { ...base(), ...at(1400) }, memo),
        { oli_id: 'M-CB3' },
        'forget: probed again',
      )
      const off = new DueProbeMemo(0)
      t.match(await claimLead(handle, { ...base(), ...at(1500) }, off), { oli_id: 'M-P4' })
      await callback('M-CB4')
      t.match(
        await claimLead(handle, { ...base(), ...at(1501) }, off),
        { oli_id: 'M-CB4' },
        'a memo time of 0 keeps nothing',
      )
    },
  )
})

t.test('the due-probe memo ends on either clock: the claims’ clock or the monotonic one', async (t) => {
  let elapsed = 0
  const memo = new DueProbeMemo(1000, () => elapsed)
  memo.nothingDue('shape', NOW)
  t.ok(memo.fresh('shape', NOW), 'fresh right after')
  t.notOk(memo.fresh('other', NOW), 'another shape is not')
  elapsed = 999
  t.ok(memo.fresh('shape', NOW), 'fresh under the time on both clocks')
  elapsed = 1000
  t.notOk(memo.fresh('shape', NOW), 'a stopped claims’ clock: the monotonic clock ends it')
  elapsed = 0
  memo.nothingDue('shape', NOW)
  t.notOk(memo.fresh('shape', new Date(NOW.getTime() + 1000)), 'the claims’ clock ends it')
  t.notOk(memo.fresh('shape', new Date(NOW.getTime() - 1)), 'a claims’ clock set back ends it')
})
