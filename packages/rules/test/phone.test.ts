// The spec's phone_number rule: strip non-digits, then 10-15 digits.
import t from 'tap'
import { normalisePhone, PHONE_MESSAGE } from '../src/phone.js'

t.test('every non-digit is stripped and the digits are returned', async (t) => {
  t.same(normalisePhone('+91 98765-43210'), { ok: true, digits: '919876543210' })
  t.same(normalisePhone('(212) 555.0100'), { ok: true, digits: '2125550100' })
  t.same(normalisePhone('tel:0044 20 7946 0958'), { ok: true, digits: '00442079460958' })
})

t.test('10 and 15 digits are the inclusive bounds', async (t) => {
  t.same(normalisePhone('1234567890'), { ok: true, digits: '1234567890' })
  t.same(normalisePhone('123456789012345'), { ok: true, digits: '123456789012345' })
})

t.test('fewer than 10 or more than 15 digits is refused with the spec message', async (t) => {
  for (const raw of [
    '',
    'no digits',
    '123456789',
    '+1 (555) 010',
    '1234567890123456',
    '12345-67890-12345-6',
  ]) {
    t.same(normalisePhone(raw), { ok: false, message: PHONE_MESSAGE }, raw)
  }
  t.equal(PHONE_MESSAGE, 'must be 10-15 digits')
})

t.test('digits of other scripts are not ASCII digits and do not count', async (t) => {
  t.same(normalisePhone('٠١٢٣٤٥٦٧٨٩'), { ok: false, message: PHONE_MESSAGE })
})
