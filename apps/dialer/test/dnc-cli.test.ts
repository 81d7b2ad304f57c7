import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough, Readable } from 'node:stream'
import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { runDncCli, USAGE } from '../src/cli/dnc.js'

/** A US centre's configuration (DEFAULT_COUNTRY unset: TIMEZONE's country). */
const US_CENTRE = { TIMEZONE: 'America/Chicago' }

/** Runs one `pnpm dnc` command line and keeps what it printed. */
async function dnc(
  url: string,
  argv: string[],
  stdin?: string,
  env: Record<string, string | undefined> = US_CENTRE,
) {
  const out: string[] = []
  const err: string[] = []
  const stdout = new PassThrough()
  const chunks: Buffer[] = []
  stdout.on('data', (c: Buffer) => chunks.push(c))
  const code = await runDncCli(
    argv,
    url,
    {
      out: (s) => out.push(s),
      err: (s) => err.push(s),
      stdin: stdin === undefined ? undefined : Readable.from([stdin]),
      stdout,
    },
    env,
  )
  return { code, out: out.join('\n'), err: err.join('\n'), stdout: Buffer.concat(chunks).toString() }
}

const NO_DATABASE = 'mysql://nobody@127.0.0.1:1/none'

t.test('help prints the usage; a bad command line exits 2 before opening the database', async (t) => {
  for (const argv of [[], ['help'], ['--help'], ['-h']]) {
    const r = await dnc(NO_DATABASE, argv, undefined, { DEFAULT_COUNTRY: 'nowhere' })
    t.equal(r.code, 0)
    t.equal(r.out, USAGE)
  }
  const cases: [string[], RegExp][] = [
    [['add'], /add needs <number>/],
    [['add', '12345'], /"12345" is not a phone number \(read in US\)/],
    [['add', '5550100100', '--expires', 'tomorrow'], /--expires "tomorrow" is not a date/],
    [['add', '5550100100', '--limit', '3'], /add takes no --limit/],
    [['add', '5550100100', '--skip-bad'], /add takes no --skip-bad/],
    [
      ['add', '5550100100', '--country', 'XX'],
      /--country "XX" is not a country with a telephone numbering plan/,
    ],
    [['add', '5550100100', '--country', 'USA'], /--country "USA" is not a country/],
    [['remove', '5550100100', 'x'], /remove: unexpected "x"/],
    [['remove', '5550100100', '--source', 'x'], /remove takes no --source/],
    [['list', '--limit', '0'], /--limit must be a whole number above 0/],
    [['list', '--country', 'US'], /list takes no --country/],
    [['import'], /import needs <file.csv>/],
    [['export', 'a.csv', 'b.csv'], /export: unexpected "b.csv"/],
    [['wipe'], /unknown command "wipe"/],
  ]
  for (const [argv, message] of cases) {
    const r = await dnc(NO_DATABASE, argv)
    t.equal(r.code, 2, argv.join(' '))
    t.match(r.err, message)
    t.match(r.err, /Run `pnpm dnc --help`/)
    t.equal(r.err.split('\n').length, 2, 'one line, and where to look')
  }
  const noCountry = await dnc(NO_DATABASE, ['add', '2125550101'], undefined, { TIMEZONE: 'UTC' })
  t.equal(noCountry.code, 2)
  t.match(
    noCountry.err,
    /"2125550101" is not a phone number \(read with no country: give it with its country code, or --country\)/,
  )
  const badConfig = await dnc(NO_DATABASE, ['list'], undefined, {
    DEFAULT_COUNTRY: 'ZZ',
    TIMEZONE: 'Mars/Base',
  })
  t.equal(badConfig.code, 2)
  t.match(
    badConfig.err,
    /^dnc: configuration: TIMEZONE must be an IANA time zone.*; DEFAULT_COUNTRY must be a two-letter country code/,
  )
})

forEachDialect(t, async (t, database) => {
  const { kysely: db } = database.handle
  const entries = () => db.selectFrom('hold_dialer_dnc').selectAll().orderBy('digits').execute()
  const entry = (digits: string) =>
    db.selectFrom('hold_dialer_dnc').selectAll().where('digits', '=', digits).executeTakeFirst()
  /** An entry as the list stored it before the international form existed. */
  const before = (digits: string, expires_at: string | null = null) =>
    db
      .insertInto('hold_dialer_dnc')
      .values({ digits, e164: null, source: 'old', added_at: '2025-01-01 00:00:00.000', expires_at })
      .execute()
  const dir = await mkdtemp(join(tmpdir(), 'dnc-cli-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  t.beforeEach(async () => {
    await db.deleteFrom('hold_dialer_dnc').execute()
  })

  t.test('a file that cannot be read or written is one line naming it, exit 1', async (t) => {
    const dir = t.testdir({ folder: {} })
    const missing = await dnc(database.url, ['import', join(dir, 'none.csv')])
    t.equal(missing.code, 1)
    t.equal(missing.err, `dnc: cannot read ${join(dir, 'none.csv')}: no such file or folder`)
    const folder = await dnc(database.url, ['import', join(dir, 'folder')])
    t.equal(folder.code, 1)
    t.equal(folder.err, `dnc: cannot read ${join(dir, 'folder')}: it is a folder`)
    const nowhere = join(dir, 'no', 'such', 'x.csv')
    const unwritable = await dnc(database.url, ['export', nowhere])
    t.equal(unwritable.code, 1)
    t.equal(unwritable.err, `dnc: cannot write ${nowhere}: no such file or folder`)
  })

  t.test('every spelling of one number is one entry; remove takes it off', async (t) => {
    const added = await dnc(database.url, ['add', '+1 (212) 555-0101', '--source', 'customer-request'])
    t.equal(added.code, 0, added.err)
    t.equal(added.out, '+12125550101 listed (source customer-request)')
    const first = await entry('12125550101')
    t.match(first, { e164: '+12125550101', source: 'customer-request', expires_at: null })

    const national = await dnc(database.url, ['add', '2125550101', '--expires', '2027-01-31'], undefined, {
      DEFAULT_COUNTRY: 'US',
      TIMEZONE: 'UTC',
    })
    t.equal(national.code, 0, national.err)
    t.equal(national.out, '+12125550101 listed until 2027-01-31 00:00:00.000 UTC')
    const fromGb = await dnc(database.url, ['add', '001 212 555 0101', '--country', 'GB', '--source', 'gb'])
    t.equal(fromGb.code, 0, fromGb.err)
    const fromUs = await dnc(database.url, ['add', '011 1 212 555 0101', '--source', 'us-prefix'])
    t.equal(fromUs.code, 0, fromUs.err)
    t.equal(fromUs.out, '+12125550101 listed (source us-prefix)')
    const all = await entries()
    t.equal(all.length, 1, 'one entry for four spellings')
    t.match(all[0], {
      digits: '12125550101',
      e164: '+12125550101',
      source: 'us-prefix',
      expires_at: null,
      added_at: first!.added_at,
    })

    const listed = await dnc(database.url, ['list'])
    t.equal(listed.code, 0)
    t.match(listed.out, /^\+12125550101\tsource=us-prefix\tadded=.*\texpires=never$/m)
    t.match(listed.out, /1 number\(s\) listed/)

    const removed = await dnc(database.url, ['remove', '(212) 555-0101'])
    t.equal(removed.code, 0, removed.err)
    t.equal(removed.out, '+12125550101 removed')
    t.same(await entries(), [])
    const missing = await dnc(database.url, ['remove', '+1 212 555 0101'])
    t.equal(missing.code, 1)
    t.match(missing.err, /^dnc: \+12125550101 is not on the list$/)
  })

  t.test('Budapest +36 1 234 5201 is not the Texas 3612345201', async (t) => {
    t.equal((await dnc(database.url, ['add', '+36 1 234 5201'])).code, 0)
    t.equal((await dnc(database.url, ['add', '3612345201'])).code, 0)
    t.match(await entries(), [
      { digits: '13612345201', e164: '+13612345201' },
      { digits: '3612345201', e164: '+3612345201' },
    ])
    const removed = await dnc(database.url, ['remove', '361-234-5201'])
    t.equal(removed.out, '+13612345201 removed')
    t.match(await entries(), [{ digits: '3612345201', e164: '+3612345201' }], 'Budapest stays')
  })

  t.test('entries from before: worked out first, updated and removed under every spelling', async (t) => {
    await before('2125550150')
    await before('12125550150', '2026-06-01 00:00:00.000')
    await before('99999')
    const listed = await dnc(database.url, ['list'])
    t.equal(listed.code, 0, listed.err)
    t.match(listed.err, /worked out the international form of 3 entries stored before it existed/)
    t.match(listed.out, /^99999 \(not a readable number\)\tsource=old/m)
    t.match(listed.out, /^\+12125550150 \(stored as 2125550150\)\tsource=old/m)
    t.match(listed.out, /^\+12125550150\tsource=old\t.*expires=2026-06-01/m)

    const again = await dnc(database.url, ['add', '+1 212 555 0150', '--source', 'new'])
    t.equal(again.code, 0, again.err)
    t.notMatch(again.err, /worked out/, 'nothing left to work out')
    t.match(await entries(), [
      {
        digits: '12125550150',
        e164: '+12125550150',
        source: 'new',
        expires_at: null,
        added_at: '2025-01-01 00:00:00.000',
      },
      {
        digits: '2125550150',
        e164: '+12125550150',
        source: 'new',
        expires_at: null,
        added_at: '2025-01-01 00:00:00.000',
      },
      { digits: '99999', e164: '' },
    ])

    const exported = await dnc(database.url, ['export'])
    t.match(
      exported.err,
      /1 entry from before cannot be read as a phone number; written with the stored digits/,
    )
    t.match(exported.stdout, /^99999,old,/m)

    const removed = await dnc(database.url, ['remove', '212.555.0150'])
    t.equal(removed.out, '+12125550150 removed (2 entries)')
    const unreadable = await dnc(database.url, ['remove', '99999'])
    t.equal(unreadable.code, 0, unreadable.err)
    t.equal(unreadable.out, '99999 removed')
    t.same(await entries(), [])
  })

  t.test('an entry from before holding the key of another person moves to its own key', async (t) => {
    // A US centre's Texas number, stored as its CRM pushed it: its digits are Budapest's key.
    await before('3612345201', '2026-03-01 00:00:00.000')
    const added = await dnc(database.url, ['add', '+36 1 234 5201', '--source', 'hu'])
    t.equal(added.code, 0, added.err)
    t.match(await entries(), [
      { digits: '13612345201', e164: '+13612345201', source: 'old', expires_at: '2026-03-01 00:00:00.000' },
      { digits: '3612345201', e164: '+3612345201', source: 'hu' },
    ])

    // Its own key taken by an entry of the same person: one entry, the later expiry kept.
    await db.deleteFrom('hold_dialer_dnc').execute()
    await before('3612345201', '2026-03-01 00:00:00.000')
    await before('13612345201', '2026-02-01 00:00:00.000')
    t.equal((await dnc(database.url, ['add', '+3612345201'])).code, 0)
    t.match(await entries(), [
      { digits: '13612345201', e164: '+13612345201', expires_at: '2026-03-01 00:00:00.000' },
      { digits: '3612345201', e164: '+3612345201' },
    ])

    // Taken by another person: refused, nothing changed.
    await db.deleteFrom('hold_dialer_dnc').execute()
    await before('3612345201')
    await db
      .insertInto('hold_dialer_dnc')
      .values({
        digits: '13612345201',
        e164: '+4413612345201',
        source: null,
        added_at: '2025-01-01 00:00:00.000',
        expires_at: null,
      })
      .execute()
    const refused = await dnc(database.url, ['add', '+3612345201'])
    t.equal(refused.code, 1)
    t.match(
      refused.err,
      /the entry stored as 3612345201 \(\+13612345201\) holds the key of a number being listed/,
    )
    t.equal((await entries()).length, 2)
  })

  t.test(
    'import: a bad line names its line number and nothing is written; --skip-bad lists the rest',
    async (t) => {
      const file = join(dir, 'bad.csv')
      // Line 3 is empty; lines 4 and 6 cannot be read.
      await writeFile(file, 'number,source\n2125550170,a\n\n12345,b\n+44 20 7946 0303,c\nnot a number\n')
      const refused = await dnc(database.url, ['import', file])
      t.equal(refused.code, 1)
      t.match(refused.err, /line 4 refused: the number is not a phone number \(read in US\)/)
      t.match(refused.err, /line 6 refused: the number is not a phone number/)
      t.match(
        refused.err,
        /dnc: 2 line\(s\) refused; nothing written \(fix them, or --skip-bad lists the 2 other row\(s\)\)/,
      )
      t.notMatch(refused.err, /12345/, 'never the number itself')
      t.same(await entries(), [])

      const skipped = await dnc(database.url, ['import', file, '--skip-bad'])
      t.equal(skipped.code, 1, 'a refused line is never silent')
      t.match(skipped.out, /imported 2 number\(s\) in [\d.]+ s; 2 line\(s\) refused/)
      t.match(skipped.err, /dnc: 2 line\(s\) refused; the other 2 listed/)
      t.match(await entries(), [
        { digits: '12125550170', e164: '+12125550170', source: 'a' },
        { digits: '442079460303', e164: '+442079460303', source: 'c' },
      ])

      const many = ['5552000001', ...Array.from({ length: 13 }, (_, i) => `${i}`)].join('\n')
      const lots = await dnc(database.url, ['import', '-'], many)
      t.equal(lots.code, 1)
      t.equal(lots.err.match(/refused: the number/g)?.length, 10, 'the first ten shown')
      t.match(lots.err, /dnc import: 3 more line\(s\) refused/)
      t.match(lots.err, /line 11 refused/, 'by line number')
      t.notMatch(lots.err, /line 12 refused/, 'the rest only counted')

      const badDate = await dnc(database.url, ['import', '-'], '2125550171,x,never\n')
      t.match(badDate.err, /line 1 refused: expires_at "never" is not a date/)
      const noHeader = await dnc(database.url, ['import', '-'], 'phone,source\n2125550172\n')
      t.equal(noHeader.code, 1)
      t.match(noHeader.err, /the header row has no number column/)
    },
  )

  t.test('import: spellings of one person in one file, --country, standard input', async (t) => {
    const r = await dnc(
      database.url,
      ['import', '-', '--source', 'file'],
      '2125550160,first\n+1 212-555-0160,second\n00 1 212 555 0161\n',
    )
    t.equal(r.code, 0, r.err)
    t.match(r.out, /imported 3 number\(s\)/)
    t.match(await entries(), [
      { digits: '12125550160', e164: '+12125550160', source: 'second' },
      { digits: '12125550161', e164: '+12125550161', source: 'file' },
    ])
    const gb = await dnc(database.url, ['import', '-', '--country', 'GB'], '020 7946 0303\n')
    t.equal(gb.code, 0, gb.err)
    t.match(await entry('442079460303'), { e164: '+442079460303' })
  })

  t.test('import and export: headers, sources, expiries; an export imports back whole', async (t) => {
    const rows = [
      'number,source,expires_at',
      '5552000001',
      '"555-200-0002",registry',
      '5552000003,,2027-02-01T10:00:00Z',
    ]
    for (let i = 0; i < 2500; i++) rows.push(`5553${String(i).padStart(6, '0')}`)
    const file = join(dir, 'in.csv')
    await writeFile(file, `${rows.join('\n')}\n`)
    const r = await dnc(database.url, ['import', file, '--source', 'file'])
    t.equal(r.code, 0, r.err)
    t.match(r.out, /^imported 2503 number\(s\) in [\d.]+ s$/)
    t.match(await entry('15552000001'), { e164: '+15552000001', source: 'file', expires_at: null })
    t.match(await entry('15552000002'), { source: 'registry' })
    t.match(await entry('15552000003'), { source: 'file', expires_at: '2027-02-01 10:00:00.000' })

    const fromStdin = await dnc(database.url, ['import', '-'], '+1 555 200 0001,again\n')
    t.equal(fromStdin.code, 0)
    t.match(await entry('15552000001'), { source: 'again' }, 'listed again: the source is replaced')

    const out = join(dir, 'out.csv')
    const exported = await dnc(database.url, ['export', out])
    t.equal(exported.code, 0, exported.err)
    t.match(exported.err, /2503 number\(s\) written/)
    const lines = (await readFile(out, 'utf8')).trim().split('\n')
    t.equal(lines[0], 'number,source,added_at,expires_at')
    t.equal(lines.length, 2504)
    t.match(lines[1], /^\+15552000001,again,/)
    const toStdout = await dnc(database.url, ['export'])
    t.equal(toStdout.stdout.trim().split('\n').length, 2504, 'standard output by default')

    const saved = await entries()
    await db.deleteFrom('hold_dialer_dnc').execute()
    // Read in another country: the international form needs none.
    const back = await dnc(database.url, ['import', out], undefined, {
      DEFAULT_COUNTRY: 'IN',
      TIMEZONE: 'UTC',
    })
    t.equal(back.code, 0, back.err)
    t.match(back.out, /imported 2503 number\(s\)/, 'an export imports back whole')
    const restored = await entries()
    t.same(
      restored.map(({ added_at: _, ...rest }) => rest),
      saved.map(({ added_at: _, ...rest }) => rest),
      'the same entries, keys, forms, sources and expiries',
    )
  })
})
