import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { forEachDialect, storedLeadWithoutForm } from '@hold-dialer/db/testing'
import t from 'tap'
import { backfill, runPhonesCli, USAGE } from '../src/cli/phones.js'

const US_CENTRE = { TIMEZONE: 'America/Chicago' }
const STAMP = '2026-01-05 10:00:00.000'

async function phones(url: string, argv: string[], env: Record<string, string | undefined> = US_CENTRE) {
  const out: string[] = []
  const err: string[] = []
  const code = await runPhonesCli(argv, url, { out: (s) => out.push(s), err: (s) => err.push(s) }, env)
  return { code, out: out.join('\n'), err: err.join('\n') }
}

/** A lead as an API of an earlier version stored it: digits only, no international form. */
const lead = (n: number, phone: string) => storedLeadWithoutForm(`bf-${n}`, phone, STAMP)

const NO_DATABASE = 'mysql://nobody@127.0.0.1:1/none'

t.test('help; a bad command line or configuration exits 2 before opening the database', async (t) => {
  for (const argv of [[], ['help'], ['--help'], ['-h'], ['backfill', '--help']]) {
    const r = await phones(NO_DATABASE, argv)
    t.equal(r.code, 0)
    t.equal(r.out, USAGE)
  }
  const cases: [string[], RegExp][] = [
    [['backfill', '--force'], /Unknown option '--force'/],
    [['backfill', 'now'], /backfill: unexpected "now"/],
    [['backfill', '--batch', '50'], /--batch must be a whole number from 100 to 10000, not "50"/],
    [['backfill', '--batch', 'lots'], /--batch must be a whole number/],
    [['fill'], /unknown command "fill"/],
  ]
  for (const [argv, message] of cases) {
    const r = await phones(NO_DATABASE, argv)
    t.equal(r.code, 2, argv.join(' '))
    t.match(r.err, message)
    t.match(r.err, /Run `pnpm phones --help`/)
  }
  const badConfig = await phones(NO_DATABASE, ['backfill'], { DEFAULT_COUNTRY: 'ZZ' })
  t.equal(badConfig.code, 2)
  t.match(badConfig.err, /^phones: configuration: DEFAULT_COUNTRY must be a two-letter country code/)

  const dir = await mkdtemp(join(tmpdir(), 'phones-cli-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const missing = join(dir, 'typo.sqlite')
  const r = await phones(`sqlite:${missing}`, ['backfill'])
  t.equal(r.code, 2)
  t.match(r.err, /there is no database at .*typo\.sqlite \(DATABASE_URL\); nothing to fill/)
  t.notOk(existsSync(missing), 'no database created')
})

forEachDialect(t, async (t, database) => {
  const { kysely: db } = database.handle
  const numbers = ['2125550101', '442079460303', '919876543210', '12345', '3612345201']
  await db
    .insertInto('hold_dialer_master_data')
    .values([
      ...Array.from({ length: 250 }, (_, i) => lead(i, numbers[i % numbers.length]!)),
      { ...lead(999, '2125550199'), phone_e164: '+12125550100', customer_tz: 'America/New_York' },
    ])
    .execute()
  await db
    .insertInto('hold_dialer_disposed')
    .values(
      ['2125550130', '12345', '442079460304'].map((phone, i) => ({
        ...lead(500 + i, phone),
        master_id: 500 + i,
        disposed_at: STAMP,
        disposed_reason: 'max_tries' as const,
      })),
    )
    .execute()
  await db
    .insertInto('hold_dialer_dnc')
    .values([
      { digits: '2125550120', e164: null, source: null, added_at: STAMP, expires_at: null },
      { digits: '99999', e164: null, source: null, added_at: STAMP, expires_at: null },
    ])
    .execute()
  await db
    .insertInto('hold_dialer_call_attempts')
    .values({
      master_id: 1,
      oli_id: 'bf-1',
      attempt_no: 1,
      dialer_id: 'd',
      dial_mode: 'progressive',
      agent_id: null,
      agent_extension: null,
      phone_number: '919876543210',
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
    .execute()

  t.test('backfill fills every table; run again, it finds nothing to do', async (t) => {
    const r = await phones(database.url, ['backfill', '--batch', '100'])
    t.equal(r.code, 0, r.err)
    t.match(r.err, /^phones backfill: leads 250\/250 \(100%\), \d+ rows\/s, done$/m)
    t.match(r.err, /^phones backfill: archived leads 3\/3 \(100%\)/m)
    t.match(r.err, /^phones backfill: do-not-call entries 2\/2 \(100%\)/m)
    t.match(r.err, /^phones backfill: call attempts 1\/1 \(100%\)/m)
    t.match(
      r.out,
      /^phones backfill: 256 row\(s\) filled in [\d.]+ s: leads 250 \([\d.]+ s, \d+ rows\/s\); archived leads 3 .*; do-not-call entries 2 .*; call attempts 1 .*$/,
    )
    t.notMatch(`${r.out}\n${r.err}`, /2125550101|\+1212/, 'no number in the output')

    const leads = await db
      .selectFrom('hold_dialer_master_data')
      .select(['oli_id', 'phone_e164', 'customer_tz'])
      .orderBy('id')
      .execute()
    t.equal(leads.filter((l) => l.phone_e164 === null).length, 0)
    t.match(leads.slice(0, 5), [
      { phone_e164: '+12125550101', customer_tz: 'America/New_York' },
      { phone_e164: '+442079460303', customer_tz: 'Europe/London' },
      { phone_e164: '+919876543210', customer_tz: 'Asia/Calcutta' },
      { phone_e164: '', customer_tz: 'America/Chicago' },
      { phone_e164: '+13612345201', customer_tz: 'America/Chicago' },
    ])
    t.match(leads[250], { oli_id: 'bf-999', phone_e164: '+12125550100' }, 'a form from the push stays')
    t.match(await db.selectFrom('hold_dialer_disposed').select('phone_e164').orderBy('id').execute(), [
      { phone_e164: '+12125550130' },
      { phone_e164: '' },
      { phone_e164: '+442079460304' },
    ])
    t.match(await db.selectFrom('hold_dialer_dnc').select(['digits', 'e164']).orderBy('digits').execute(), [
      { digits: '2125550120', e164: '+12125550120' },
      { digits: '99999', e164: '' },
    ])
    t.match(await db.selectFrom('hold_dialer_call_attempts').select('phone_e164').execute(), [
      { phone_e164: '+919876543210' },
    ])

    const again = await phones(database.url, ['backfill'])
    t.equal(again.code, 0, again.err)
    t.equal(again.err, '', 'no progress: nothing to fill')
    t.match(
      again.out,
      /^phones backfill: 0 row\(s\) filled in [\d.]+ s: leads 0; archived leads 0; do-not-call entries 0; call attempts 0$/,
    )
  })

  t.test('progress: at most once a second, with the rate and the time left', async (t) => {
    await db.updateTable('hold_dialer_master_data').set({ phone_e164: null }).execute()
    let now = 0
    const err: string[] = []
    // Each look at the clock is half a second later.
    const r = await backfill(
      db,
      { country: 'US', fallbackZone: 'America/Chicago' },
      100,
      { err: (s) => err.push(s) },
      () => {
        now += 500
        return now
      },
    )
    t.equal(r.tables[0]!.rows, 251)
    const leadLines = err.filter((line) => line.includes(' leads '))
    t.ok(leadLines.length >= 2, 'a line during the table and one at its end')
    t.match(leadLines[0], /^phones backfill: leads (100|200)\/251 \(\d+%\), \d+ rows\/s, about \d+ s left$/)
    t.match(leadLines.at(-1), /leads 251\/251 \(100%\), \d+ rows\/s, done$/)
  })
})
