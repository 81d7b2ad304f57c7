// `pnpm start`'s output: pino JSON rendered for a terminal, passed through as JSON otherwise, prefixed.
import t from 'tap'
import { lineFormatter } from '../log-lines.mjs'

const LINE = JSON.stringify({
  level: 30,
  time: Date.UTC(2026, 0, 2, 3, 4, 5),
  pid: 42,
  hostname: 'box',
  name: 'dialer',
  lead: 7,
  msg: 'customer answered',
})

t.test('pretty: a pino line is rendered human-readable, every line of it prefixed', async (t) => {
  const text = lineFormatter({ pretty: true, colorize: false })('dialer', LINE)
  const lines = text.split('\n')
  t.equal(lines.at(-1), '', 'ends with a newline')
  t.match(lines[0], /^\[dialer\] \[\d\d:\d\d:\d\d\.\d{3}\] INFO \(dialer\): customer answered$/)
  t.ok(
    lines.some((l) => l === '[dialer]     lead: 7'),
    'a field on its own prefixed line',
  )
  t.notOk(text.includes('"level"'), 'no JSON left')
  t.notOk(text.includes('hostname'), 'pid and hostname left out')
})

t.test('pretty: a line that is not pino JSON passes through', async (t) => {
  const format = lineFormatter({ pretty: true, colorize: false })
  t.equal(format('api', 'Error: boom'), '[api] Error: boom\n')
  t.equal(format('api', '{not json'), '[api] {not json\n')
  t.equal(format('api', '{"no":"level"}'), '[api] {"no":"level"}\n')
})

t.test('not a terminal: the JSON line as it is, prefixed', async (t) => {
  t.equal(lineFormatter({ pretty: false })('dialer', LINE), `[dialer] ${LINE}\n`)
})
