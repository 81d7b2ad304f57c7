import type { NewMasterRow } from '@hold-dialer/db'
import t from 'tap'
import { PUSH_COLUMNS, pushValues } from '../src/sql/master-columns.js'

t.test("pushValues writes each column's own value, in PUSH_COLUMNS' order, from any position", async (t) => {
  // Each column holds its own name: the values must then read as the column list.
  const row = Object.fromEntries(PUSH_COLUMNS.map((c) => [c, c])) as unknown as NewMasterRow
  t.same(pushValues(row), [...PUSH_COLUMNS])
  const out = pushValues(row, ['before'], 1)
  t.same(out, ['before', ...PUSH_COLUMNS])
  t.same(pushValues(row, out), ['before', ...PUSH_COLUMNS, ...PUSH_COLUMNS], 'appended at the end by default')
  const empty = { oli_id: 'o', phone_number: '1' } as NewMasterRow
  t.same(
    pushValues(empty),
    PUSH_COLUMNS.map((c) => (c === 'oli_id' ? 'o' : c === 'phone_number' ? '1' : null)),
    'an absent column is NULL',
  )
})
