// LOG_FORMAT: what is set wins; unset, a terminal gets pretty lines and anything else JSON.
import t from 'tap'
import { chooseLogFormat } from '../src/log-format.js'

t.test('unset: pretty on a terminal, JSON on a pipe, a file or the journal', async (t) => {
  t.equal(chooseLogFormat(undefined, true), 'pretty')
  t.equal(chooseLogFormat(undefined, false), 'json')
})

t.test('set: the setting wins whatever stdout is', async (t) => {
  t.equal(chooseLogFormat('json', true), 'json')
  t.equal(chooseLogFormat('json', false), 'json')
  t.equal(chooseLogFormat('pretty', true), 'pretty')
  t.equal(chooseLogFormat('pretty', false), 'pretty')
})
