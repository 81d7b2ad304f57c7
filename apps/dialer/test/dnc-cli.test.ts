import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough, Readable } from 'node:stream'
import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { runDncCli, USAGE } from '../src/cli/dnc.js'

/** Runs one `pnpm dnc` command line and keeps what it printed. */
async function dnc(url: string, argv: string[], stdin?: string) {
  const out: string[] = []
  const err: string[] = []
  const stdout = new PassThrough()
  const chunks: Buffer[] = []
  stdout.on('data', (c: Buffer) => chunks.push(c))
  const code = await runDncCli(argv, url, {
    out: (s) => out.push(s),
    err: (s) => err.push(s),
    stdin: stdin === undefined ? undefined : Readable.from([stdin]),
    stdout,
  })
  return { code, out: out.join('\n'), err: err.join('\n'), stdout: Buffer.concat(chunks).toString() }
}

const NO_DATABASE = 'mysql://nobody@127.0.0.1:1/none'

t.test('help prints the usage; a bad command line exits 2 before opening the database', async (t) => {
  for (const argv of [[], ['help'], ['--help'], ['-h']]) {
    const r = await dnc(NO_DATABASE, argv)
    t.equal(r.code, 0)
    t.equal(r.out, USAGE)
  }
  const cases: [string[], RegExp][] = [
    [['add'], /add needs <number>/],
    [['add', '12345'], /"12345" is not a phone number: it must be 10-15 digits/],
    [['add', '5550100100', '--expires', 'tomorrow'], /--expires "tomorrow" is not a date/],
    [['add', '5550100100', '--limit', '3'], /add takes no --limit/],
    [['remove', '5550100100', 'x'], /remove: unexpected "x"/],
    [['list', '--limit', '0'], /--limit must be a whole number above 0/],
    [['import'], /import needs <file.csv>/],
    [['wipe'], /unknown command "wipe"/],
  ]
  for (const [argv, message] of cases) {
    const r = await dnc(NO_DATABASE, argv)
    t.equal(r.code, 2, argv.join(' '))
    t.match(r.err, message)
    t.match(r.err, /Run `pnpm dnc --help`/)
  }
})

forEachDialect(t, async (t, database) => {
  const { kysely: db } = database.handle
  const entry = (digits: string) =>
    db.selectFrom('hold_dialer_dnc').selectAll().where('digits', '=', digits).executeTakeFirst()
  const dir = await mkdtemp(join(tmpdir(), 'dnc-cli-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))

  t.test('add, list again with a new expiry, list, remove', async (t) => {
    const added = await dnc(database.url, ['add', '+1 (212) 555-0100', '--source', 'customer-request'])
    t.equal(added.code, 0, added.err)
    t.match(added.out, /12125550100 listed \(source customer-request\)/)
    t.match(await entry('12125550100'), { source: 'customer-request', expires_at: null })
    const again = await dnc(database.url, ['add', '12125550100', '--expires', '2027-01-31'])
    t.equal(again.code, 0)
    t.match(await entry('12125550100'), { source: null, expires_at: '2027-01-31 00:00:00.000' })
    const listed = await dnc(database.url, ['list'])
    t.match(listed.out, /12125550100\tsource=-\tadded=.*\texpires=2027-01-31 00:00:00.000/)
    t.match(listed.out, /1 number\(s\) listed/)
    t.equal((await dnc(database.url, ['remove', '12125550100'])).code, 0)
    t.equal(await entry('12125550100'), undefined)
    const missing = await dnc(database.url, ['remove', '12125550100'])
    t.equal(missing.code, 1)
    t.match(missing.err, /12125550100 is not on the list/)
  })

  t.test('import: header, sources, expiries, bad rows counted; export gives the list back', async (t) => {
    const rows = [
      'number,source,expires_at',
      '5552000001',
      '"555-200-0002",registry',
      '5552000003,,2027-02-01T10:00:00Z',
    ]
    rows.push('123', '5552000004,x,never')
    for (let i = 0; i < 2500; i++) rows.push(`5553${String(i).padStart(6, '0')}`)
    const file = join(dir, 'in.csv')
    await writeFile(file, `${rows.join('\n')}\n`)
    const r = await dnc(database.url, ['import', file, '--source', 'file'])
    t.equal(r.code, 0, r.err)
    t.match(r.out, /imported 2503 number\(s\) in [\d.]+ s; 2 row\(s\) skipped/)
    t.match(r.err, /line 5 skipped: the number must be 10-15 digits/)
    t.match(r.err, /line 6 skipped: expires_at "never" is not a date/)
    t.notMatch(r.err, /5552000004/, 'no number in the messages')
    t.match(await entry('5552000001'), { source: 'file', expires_at: null })
    t.match(await entry('5552000002'), { source: 'registry' })
    t.match(await entry('5552000003'), { source: 'file', expires_at: '2027-02-01 10:00:00.000' })
    t.equal(await entry('5552000004'), undefined)

    const fromStdin = await dnc(database.url, ['import', '-'], '5552000001,again\n')
    t.equal(fromStdin.code, 0)
    t.match(await entry('5552000001'), { source: 'again' }, 'listed again: the source is replaced')

    const out = join(dir, 'out.csv')
    const exported = await dnc(database.url, ['export', out])
    t.equal(exported.code, 0, exported.err)
    t.match(exported.err, /2503 number\(s\) written/)
    const lines = (await readFile(out, 'utf8')).trim().split('\n')
    t.equal(lines[0], 'number,source,added_at,expires_at')
    t.equal(lines.length, 2504)
    t.match(lines[1], /^5552000001,again,/)
    const toStdout = await dnc(database.url, ['export'])
    t.equal(toStdout.stdout.trim().split('\n').length, 2504, 'standard output by default')

    await db.deleteFrom('hold_dialer_dnc').execute()
    const back = await dnc(database.url, ['import', out])
    t.equal(back.code, 0)
    t.match(back.out, /imported 2503 number\(s\)/, 'an export imports back whole')
    t.match(await entry('5552000003'), { expires_at: '2027-02-01 10:00:00.000' })
  })
})
