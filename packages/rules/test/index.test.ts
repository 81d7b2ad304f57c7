// The package entry point exports the API the API and dialer code against.
import t from 'tap'
import * as rules from '../src/index.js'

t.test('the entry point exports every rule', async (t) => {
  for (const name of [
    'parseCallbackTime',
    'formatLocal',
    'toDbTime',
    'fromDbTime',
    'normalisePhone',
    'isWithinWorkingHours',
    'nextWorkStart',
    'nextRetryAtForPush',
    'workStartOfDay',
    'workEndOfDay',
    'nextAttempt',
    'retryDelayForAbandon',
    'defaultRetryPattern',
    'resetForPush',
    'resetForClose',
    'resetForCallback',
    'parseConfig',
    'describeConfig',
    'ConfigError',
    'chooseLogFormat',
  ]) {
    t.type((rules as Record<string, unknown>)[name], 'function', name)
  }
  t.ok(Array.isArray(rules.DIAL_STATUSES))
})
