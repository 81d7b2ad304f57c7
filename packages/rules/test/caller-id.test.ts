// Caller IDs handed to Asterisk: a lead's name made safe for ast_callerid_parse and AMI.
import t from 'tap'
import { CALLER_ID_NAME_MAX, callerId, callerIdName } from '../src/index.js'

const NAMES: Array<[string, string]> = [
  ['Asha Rao', 'Asha Rao'],
  ['  Asha   Rao ', 'Asha Rao'],
  ['"Asha" <Rao>', 'Asha Rao'],
  ['Smith, John (Jr.)', 'Smith, John (Jr.)'],
  ['back\\slash', 'back slash'],
  ['line\r\nbreak\ttab\u0000nul\u007fdel', 'line break tab nul del'],
  ['Zoë Ørsted 李', 'Zoë Ørsted 李'],
  ['"<>"', ''],
  ['', ''],
]

for (const [raw, expected] of NAMES) {
  t.test(`${JSON.stringify(raw)} -> ${JSON.stringify(expected)}`, async (t) => {
    t.equal(callerIdName(raw), expected)
  })
}

t.test('at most CALLER_ID_NAME_MAX characters, counted as characters, trimmed after the cut', async (t) => {
  t.equal(callerIdName('x'.repeat(100)).length, CALLER_ID_NAME_MAX)
  t.equal(callerIdName(`${'x'.repeat(CALLER_ID_NAME_MAX - 1)} y`), 'x'.repeat(CALLER_ID_NAME_MAX - 1))
  t.equal([...callerIdName('😀'.repeat(50))].length, CALLER_ID_NAME_MAX, 'no surrogate pair is cut')
})

t.test('callerId: "Name" <number>', async (t) => {
  t.equal(callerId('Asha "A" Rao', '+919876543210'), '"Asha A Rao" <+919876543210>')
  t.equal(callerId('', '+3612345201'), '"" <+3612345201>')
})
