import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { runAgentsCli, USAGE } from '../src/cli/agents.js'

/** Runs one `pnpm agents` command line and keeps what it printed. */
async function agents(url: string, ...argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await runAgentsCli(argv, url, { out: (s) => out.push(s), err: (s) => err.push(s) })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

// Nothing listens on port 1: a command that opened the database would fail, not print the usage.
const NO_DATABASE = 'mysql://nobody@127.0.0.1:1/none'

t.test('help, --help, -h and no command print the usage on stdout and exit 0', async (t) => {
  for (const argv of [[], ['help'], ['--help'], ['-h'], ['--', '--help']]) {
    const r = await agents(NO_DATABASE, ...argv)
    t.equal(r.code, 0, `${JSON.stringify(argv)}: exit 0`)
    t.equal(r.out, USAGE)
    t.equal(r.err, '')
  }
  t.match(USAGE, /An extension is the agent's desk number: 1 to 20 digits/)
  t.match(USAGE, /add <extension> <name> \[email\] \[--pbx NAME\]/, '--pbx is in the usage')
})

t.test('a bad command line exits 2 with a message, before opening the database', async (t) => {
  const cases: [string[], RegExp][] = [
    [['add', 'abc', 'X'], /"abc" is not an extension: an extension is 1 to 20 digits \(0-9\)/],
    [['add', '10 01', 'X'], /"10 01" is not an extension/],
    [['add', '123456789012345678901', 'X'], /is not an extension/],
    [['add', '1001'], /add needs <extension> <name>/],
    [['add', '1001', '  '], /the name must be 1 to 150 characters/],
    [['add', '1001', 'Asha', 'not-an-email'], /"not-an-email" is not an email address/],
    [['presence', '1001', 'away'], /presence is ready, paused or offline, not "away"/],
    [['presence', 'x1', 'ready'], /"x1" is not an extension/],
    [['activate'], /activate needs <extension>/],
    [['set-pin', '1001', '4821'], /set-pin: unexpected "4821"/],
    [['set-pin'], /set-pin needs <extension>/],
    [['deactivate', '1001', 'extra'], /deactivate: unexpected "extra"/],
    [['demo', '1001', 'abc'], /"abc" is not an extension/],
    [['remove', '1001'], /there is no remove: .*deactivate <extension>/],
    [['fire', '1001'], /unknown command "fire"/],
    [['list', '--bogus'], /Unknown option '--bogus'/],
    [['add', '1001', 'Asha', '--pbx', 'east side'], /"east side" is not a PBX name/],
    [['add', '1001', 'Asha', '--pbx', ''], /"" is not a PBX name/],
    [['presence', '1001', 'ready', '--pbx', 'east'], /--pbx goes with list, add and demo, not presence/],
    [['pbx', '1001'], /pbx needs <extension> <NAME>/],
    [['pbx', '1001', 'a/b'], /"a\/b" is not a PBX name/],
  ]
  for (const [argv, message] of cases) {
    const r = await agents(NO_DATABASE, ...argv)
    t.equal(r.code, 2, `${argv.join(' ')}: exit 2`)
    t.match(r.err, message)
    t.match(r.err, /Run `pnpm agents --help`/)
    t.equal(r.out, '')
  }
})

t.test('a missing SQLite file is refused, not created: one line naming it, exit 1', async (t) => {
  const dir = t.testdir({})
  for (const path of [join(dir, 'dialer.sqlite'), join(dir, 'no', 'such', 'dir', 'x.sqlite')]) {
    const r = await agents(`sqlite:${path}`, 'list')
    t.equal(r.code, 1, `${path}: exit 1`)
    t.equal(
      r.err,
      `agents: no database at ${path}: start the system once (pnpm start) or run pnpm db:migrate to create it, or set DATABASE_URL to the database the dialer uses`,
    )
    t.equal(r.out, '')
    t.notOk(existsSync(path), 'no file was created')
  }
  const wrong = await agents('postgres://x/y', 'list')
  t.equal(wrong.code, 1)
  t.equal(wrong.err, 'agents: DATABASE_URL must start with mysql:// or sqlite:')
})

forEachDialect(t, async (t, database) => {
  const { kysely: db } = database.handle
  const row = (extension: string) =>
    db.selectFrom('dialer_employee').selectAll().where('extension', '=', extension).executeTakeFirst()

  t.test('add: a new agent is active and offline; a refused extension adds nothing', async (t) => {
    const added = await agents(database.url, 'add', '1001', 'Asha', 'asha@example.com')
    t.equal(added.code, 0, added.err)
    t.match(added.out, /added 1001 \(Asha\), active, presence offline/)
    t.match(await row('1001'), { name: 'Asha', email: 'asha@example.com', is_active: 1, presence: 'offline' })
    const refused = await agents(database.url, 'add', 'abc', 'X')
    t.equal(refused.code, 2)
    const all = await db.selectFrom('dialer_employee').select('extension').execute()
    t.same(
      all.map((r) => r.extension),
      ['1001'],
    )
  })

  t.test('--pbx: an agent of another PBX; list by PBX; pbx moves an agent', async (t) => {
    const added = await agents(database.url, 'add', '1901', 'Eli', '--pbx', 'east')
    t.equal(added.code, 0, added.err)
    t.match(added.out, /added 1901 \(Eli\), active, presence offline, PBX east/)
    t.match(await row('1901'), { pbx: 'east' }, 'the agent is on the east PBX')
    t.match(await row('1001'), { pbx: 'default' }, 'an agent added without --pbx is on the default PBX')
    const east = await agents(database.url, 'list', '--pbx', 'east')
    t.equal(east.code, 0, east.err)
    t.match(east.out, /^1901\tEli\t.*\tpbx=east\n1 agent\(s\)$/, 'list --pbx shows that PBX only')
    const moved = await agents(database.url, 'pbx', '1901', 'west')
    t.equal(moved.code, 0, moved.err)
    t.equal(moved.out, '1901 is on PBX west')
    t.match(await row('1901'), { pbx: 'west' })
    t.equal((await agents(database.url, 'pbx', '1999', 'west')).code, 1, 'no such agent: exit 1')
    await db.deleteFrom('dialer_employee').where('extension', '=', '1901').execute()
  })

  t.test('add: an extension already taken is refused by name, no database error text', async (t) => {
    const again = await agents(database.url, 'add', '1001', 'Someone Else')
    t.equal(again.code, 1)
    t.equal(again.err, 'agents: extension 1001 is already taken by Asha')
    t.notMatch(again.err, /UNIQUE|ER_DUP_ENTRY|constraint|Duplicate/i)
    t.match(await row('1001'), { name: 'Asha' }, 'the agent is unchanged')
  })

  t.test('deactivate and activate: a deactivated agent comes back', async (t) => {
    const off = await agents(database.url, 'deactivate', '1001')
    t.equal(off.code, 0, off.err)
    t.match(off.out, /1001 \(Asha\) deactivated/)
    t.equal((await row('1001'))?.is_active, 0)
    const listed = await agents(database.url, 'list')
    t.match(listed.out, /^1001\tAsha\tdeactivated\tpresence=offline/m)

    const readd = await agents(database.url, 'add', '1001', 'Asha')
    t.equal(readd.code, 1)
    t.match(readd.err, /already taken by Asha \(deactivated; `pnpm agents activate 1001` takes it back\)/)

    const twice = await agents(database.url, 'deactivate', '1001')
    t.equal(twice.code, 0)
    t.match(twice.out, /1001 \(Asha\) is already deactivated/)

    const on = await agents(database.url, 'activate', '1001')
    t.equal(on.code, 0, on.err)
    t.match(on.out, /1001 \(Asha\) activated/)
    t.match(await row('1001'), { is_active: 1, name: 'Asha', email: 'asha@example.com' })
    t.match((await agents(database.url, 'list')).out, /^1001\tAsha\tactive\t/m)
  })

  t.test('an extension nobody has: exit 1 and a plain message', async (t) => {
    for (const argv of [
      ['activate', '4242'],
      ['deactivate', '4242'],
      ['presence', '4242', 'ready'],
      ['panel', '4242'],
    ]) {
      const r = await agents(database.url, ...argv)
      t.equal(r.code, 1, argv.join(' '))
      t.equal(r.err, 'agents: no agent with extension 4242')
    }
    t.equal(await row('4242'), undefined)
  })

  t.test('presence and panel write the agent row', async (t) => {
    const r = await agents(database.url, 'presence', '1001', 'ready')
    t.equal(r.code, 0, r.err)
    t.equal((await row('1001'))?.presence, 'ready')
    t.equal((await row('1001'))?.panel_seen_at, null)
    const p = await agents(database.url, 'panel', '1001')
    t.equal(p.code, 0, p.err)
    t.type((await row('1001'))?.panel_seen_at, 'string')
  })

  t.test('set-pin: the PIN from stdin, stored as a salted hash; a short one refused', async (t) => {
    const withPin = (pin: string) => ({
      out: () => {},
      err: (s: string) => errors.push(s),
      readPin: async () => pin,
    })
    const errors: string[] = []
    t.equal(await runAgentsCli(['set-pin', '1001'], database.url, withPin('123')), 1, '3 digits: exit 1')
    t.match(errors.join('\n'), /a PIN is 4 to 12 digits/)
    t.equal((await row('1001'))?.pin_hash, null, 'nothing stored')
    t.equal(await runAgentsCli(['set-pin', '1001'], database.url, withPin('4821')), 0, '4 digits: exit 0')
    const first = (await row('1001'))?.pin_hash
    t.match(first, /^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/, 'scrypt, salt and hash')
    t.equal(await runAgentsCli(['set-pin', '1001'], database.url, withPin('4821')), 0)
    t.not((await row('1001'))?.pin_hash, first, 'the same PIN again: another salt, another hash')
    t.equal(
      await runAgentsCli(['set-pin', '1999'], database.url, withPin('4821')),
      1,
      'no such agent: exit 1',
    )
  })
})
