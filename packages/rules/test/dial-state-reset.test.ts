// One test per row of the spec's "Dial-state reset" table: each checks its column for every
// event (push inside hours, push outside hours, push with a callback time, Close, Callback
// Schedule / send-callback-request).
import t, { type Test } from 'tap'
import {
  DIAL_STATUSES,
  type DialStateReset,
  resetForCallback,
  resetForClose,
  resetForPush,
} from '../src/dial-state-reset.js'

const hours = { zone: 'Asia/Kolkata', start: '09:00', end: '18:00' }
const insideHours = new Date('2026-05-01T06:00:00Z') // 11:30 IST
const outsideHours = new Date('2026-05-01T15:00:00Z') // 20:30 IST
const callbackAt = new Date('2026-05-03T10:15:00Z')
const nextMorning = new Date('2026-05-02T03:30:00Z') // 09:00 IST

const events: Record<string, () => DialStateReset> = {
  'push inside hours': () => resetForPush({ callbackAt: null, now: insideHours, hours }),
  'push outside hours': () => resetForPush({ callbackAt: null, now: outsideHours, hours }),
  'push with a callback time': () => resetForPush({ callbackAt, now: outsideHours, hours }),
  Close: () => resetForClose(),
  'Callback Schedule / send-callback-request': () => resetForCallback(callbackAt),
}

type Column = keyof DialStateReset

function checkColumn(t: Test, column: Column, expected: Record<string, unknown>): void {
  for (const [event, reset] of Object.entries(events)) {
    t.strictSame(reset()[column], expected[event], `${column} on ${event}`)
  }
}

// Every column of the table except dial_status, next_retry_at and callback_scheduled_at is
// the same for every event.
const CLEARED: Array<[Column, null | 0]> = [
  ['last_dial_result', null],
  ['hangup_by', null],
  ['hangup_cause', null],
  ['last_attempt_at', null],
  ['first_attempt_at', null],
  ['call_count', 0],
  ['isReserved', 0],
  ['isRnrSent', 0],
]

t.test(
  'dial_status: Pending on push, Callback with a callback time, Disposed on Close, Callback on schedule',
  async (t) => {
    checkColumn(t, 'dial_status', {
      'push inside hours': 'Pending',
      'push outside hours': 'Pending',
      'push with a callback time': 'Callback',
      Close: 'Disposed',
      'Callback Schedule / send-callback-request': 'Callback',
    })
  },
)

for (const [column, value] of CLEARED) {
  t.test(`${column}: ${String(value)} for every event`, async (t) => {
    checkColumn(t, column, Object.fromEntries(Object.keys(events).map((event) => [event, value])))
  })
}

t.test('next_retry_at: NULL inside hours, else next WORK_START; NULL for callbacks and Close', async (t) => {
  checkColumn(t, 'next_retry_at', {
    'push inside hours': null,
    'push outside hours': nextMorning,
    'push with a callback time': null,
    Close: null,
    'Callback Schedule / send-callback-request': null,
  })
})

t.test(
  'callback_scheduled_at: the sent time or NULL on push, NULL on Close, scheduledAt on schedule',
  async (t) => {
    checkColumn(t, 'callback_scheduled_at', {
      'push inside hours': null,
      'push outside hours': null,
      'push with a callback time': callbackAt,
      Close: null,
      'Callback Schedule / send-callback-request': callbackAt,
    })
  },
)

t.test('the reset writes exactly the eleven columns of the table', async (t) => {
  for (const [event, reset] of Object.entries(events)) {
    t.same(
      Object.keys(reset()).sort(),
      [
        'callback_scheduled_at',
        'call_count',
        'dial_status',
        'first_attempt_at',
        'hangup_by',
        'hangup_cause',
        'isRnrSent',
        'isReserved',
        'last_attempt_at',
        'last_dial_result',
        'next_retry_at',
      ].sort(),
      event,
    )
  }
})

t.test('DIAL_STATUSES spells every state the spec names, exactly', async (t) => {
  t.same(DIAL_STATUSES, [
    'Pending',
    'Callback',
    'Calling',
    'Disposed',
    'Not Connected',
    'Received',
    'Rejected',
    'Abandoned',
    'Archived',
  ])
})
