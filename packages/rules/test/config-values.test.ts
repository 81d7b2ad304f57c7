// What each configuration variable accepts and becomes, and the values derived from them.
import { Value } from '@sinclair/typebox/value'
import t from 'tap'
import { ConfigSchema, parseConfig } from '../src/config.js'
import { configValueOf, HOST, problemsOf } from './fixtures/config-helpers.js'

// A value each variable accepts, and what it becomes.
const ACCEPTED: Array<[string, string, unknown]> = [
  ['DATABASE_URL', 'mysql://dialer:pw@db.internal:3306/dialer', 'mysql://dialer:pw@db.internal:3306/dialer'],
  ['DATABASE_URL', 'sqlite::memory:', 'sqlite::memory:'],
  ['WS_SECRET', 'a long shared secret!', 'a long shared secret!'],
  ['HOST', '0.0.0.0', '0.0.0.0'],
  ['PORT', '8080', 8080],
  ['PORT', '65535', 65535],
  ['CALLBACK_MODE', 'pinned', 'pinned'],
  ['TIMEZONE', 'Europe/London', 'Europe/London'],
  ['TIMEZONE', 'UTC', 'UTC'],
  ['WORK_START', '00:00', '00:00'],
  ['WORK_END', '23:59', '23:59'],
  ['RETRY_PATTERN', '[3, 0, 1]', [3, 0, 1]],
  ['RETRY_SECONDS', '0', 0],
  ['MAX_TRIES', '12', 12],
  ['ABANDON_RETRY_SECONDS', '259200', 259200],
  ['AMI_HOST', 'pbx.internal', 'pbx.internal'],
  ['AMI_PORT', '15038', 15038],
  ['AMI_USERNAME', 'dialer', 'dialer'],
  ['AMI_SECRET', 's3cret', 's3cret'],
  ['REDIS_URL', 'rediss://:pw@cache:6380/0', 'rediss://:pw@cache:6380/0'],
  ['TRUST_PROXY', 'yes', true],
  ['TRUST_PROXY', '2', 2],
  ['TRUST_PROXY', '10.0.0.1', ['10.0.0.1']],
  ['TRUST_PROXY', '10.0.0.0/8, ::1, fd00::/8,loopback', ['10.0.0.0/8', '::1', 'fd00::/8', 'loopback']],
  ['TRUST_PROXY', '192.168.0.0/255.255.0.0', ['192.168.0.0/255.255.0.0']],
  ['SMTP_URL', 'smtps://mailer:pw@smtp.example.com', 'smtps://mailer:pw@smtp.example.com'],
  ['RNR_MAIL_FROM', 'dialer@example.com', 'dialer@example.com'],
  ['RNR_MAIL_TO', 'ops@example.com, team@example.com', 'ops@example.com, team@example.com'],
  ['LOG_LEVEL', 'debug', 'debug'],
  ['REQUEST_LOG_LEVEL', 'silent', 'silent'],
  ['LOG_LEVEL', 'silent', 'silent'],
  ['LOG_FORMAT', 'json', 'json'],
  ['LOG_FORMAT', 'pretty', 'pretty'],
  ['DB_MIGRATE_ON_START', 'no', false],
  ['RESERVATION_TIMEOUT_SECONDS', '60', 60],
  ['DIAL_MODE', 'predictive', 'predictive'],
  ['DIALER_ID', 'dialer-a:4242', 'dialer-a:4242'],
  ['PBX_NAME', 'site-2.east_a', 'site-2.east_a'],
  ['HEARTBEAT_SECONDS', '1', 1],
  ['AMI_PING_SECONDS', '30', 30],
  ['AMI_ACTION_TIMEOUT_MS', '250', 250],
  ['AGENT_CHANNEL_TEMPLATE', 'SIP/{extension}', 'SIP/{extension}'],
  ['AGENT_DEVICE_TEMPLATE', 'Custom:desk{extension}', 'Custom:desk{extension}'],
  ['AGENT_DEVICE_TEMPLATE', 'hint:{extension}@desks', 'hint:{extension}@desks'],
  ['CUSTOMER_CONTEXT', 'from-dialer', 'from-dialer'],
  ['CUSTOMER_CHANNEL_TEMPLATE', 'PJSIP/0{number}@carrier', 'PJSIP/0{number}@carrier'],
  ['CUSTOMER_CHANNEL_TEMPLATE', 'PJSIP/00{international}@carrier', 'PJSIP/00{international}@carrier'],
  ['DIAL_NUMBER_FORMAT', 'national', 'national'],
  ['HOLD_CONTEXT', 'hold-queue', 'hold-queue'],
  ['RING_TIMEOUT_SECONDS', '25', 25],
  ['CALL_TIMEOUT_SECONDS', '3600', 3600],
  ['HOLD_TIMEOUT_SECONDS', '45', 45],
  ['WRAP_SECONDS', '0', 0],
  ['AGENT_CONTEXT', 'agents-in', 'agents-in'],
  ['MAX_DIAL_LEVEL', '2.5', 2.5],
  ['COMPLIANCE_SECONDS', '1.5', 1.5],
  ['ABANDON_RATE_MAX', '0.05', 0.05],
  ['ABANDON_RATE_MAX', '0', 0],
  ['DIALER_HTTP_HOST', '0.0.0.0', '0.0.0.0'],
  ['DIALER_HTTP_PORT', '0', 0],
  ['DIALER_HTTP_PORT', '9464', 9464],
  ['DIALER_HTTP_SECRET', 'metrics secret', 'metrics secret'],
  ['ABANDON_WINDOW', '24h', '24h'],
  ['MAX_CALLS_PER_NUMBER_PER_DAY', '3', 3],
  ['MIN_SECONDS_BETWEEN_CALLS_TO_NUMBER', '600', 600],
  ['PINNED_FALLBACK_MINUTES', '30', 30],
  ['CALLING_HOURS', 'off', 'off'],
  ['DEFAULT_COUNTRY', 'us', 'US'],
  ['OUTBOUND_CALLER_ID', '"Hold Co" <+442079460000>', '"Hold Co" <+442079460000>'],
  ['OUTBOUND_CALLER_ID', '"Hold, (UK) Ltd." <2079460000>', '"Hold, (UK) Ltd." <2079460000>'],
  ['TRUNK_BREAKER_FAILURES', '0', 0],
  ['TRUNK_BREAKER_FAILURES', '20', 20],
  ['TRUNK_BREAKER_PROBE_SECONDS', '5', 5],
  ['AGENT_PAUSE_REASONS', 'break, lunch ,meeting', ['break', 'lunch', 'meeting']],
  ['AGENT_PAUSE_REASONS', 'coaching', ['coaching']],
  ['AMD', 'predictive', 'predictive'],
  ['AMD', 'off', 'off'],
  ['AMD', 'progressive', 'progressive'],
  ['AMD', 'both', 'both'],
  ['AMD_RECORD_ONLY', 'yes', true],
  ['AMD_MACHINE_ABANDON_SHARE', '0.05', 0.05],
  ['AMD_MACHINE_ABANDON_SHARE', '0', 0],
  ['AMD_RETRY_SECONDS', '0', 0],
  ['AMD_INITIAL_SILENCE_MS', '3000', 3000],
  ['AMD_GREETING_MS', '1200', 1200],
  ['AMD_AFTER_GREETING_SILENCE_MS', '700', 700],
  ['AMD_TOTAL_ANALYSIS_MS', '4000', 4000],
  ['AMD_MIN_WORD_MS', '120', 120],
  ['AMD_BETWEEN_WORDS_SILENCE_MS', '60', 60],
  ['AMD_MAX_WORDS', '4', 4],
  ['AMD_SILENCE_THRESHOLD', '300', 300],
  ['AMD_MAX_WORD_MS', '4000', 4000],
]

t.test('every variable accepts a valid value', async (t) => {
  for (const [name, raw, expected] of ACCEPTED) {
    t.strictSame(configValueOf(parseConfig({ [name]: raw }, HOST), name), expected, `${name}=${raw}`)
  }
})

t.test('values are trimmed', async (t) => {
  const config = parseConfig({ PORT: ' 8080 ', CALLBACK_MODE: 'pinned\n', WS_SECRET: ' s ' }, HOST)
  t.equal(config.port, 8080)
  t.equal(config.callbackMode, 'pinned')
  t.equal(config.wsSecret, 's')
})

t.test('booleans accept true/false, 1/0, yes/no in any case', async (t) => {
  const words: Array<[string, boolean]> = [
    ['true', true],
    ['TRUE', true],
    ['1', true],
    ['yes', true],
    ['Yes', true],
    ['false', false],
    ['False', false],
    ['0', false],
    ['no', false],
    ['NO', false],
  ]
  for (const [word, expected] of words) {
    if (!/^\d$/.test(word)) {
      t.equal(parseConfig({ TRUST_PROXY: word }, HOST).trustProxy, expected, `TRUST_PROXY=${word}`)
    }
    t.equal(
      parseConfig({ DB_MIGRATE_ON_START: word }, HOST).dbMigrateOnStart,
      expected,
      `DB_MIGRATE_ON_START=${word}`,
    )
  }
})

t.test('TRUST_PROXY digits are a hop count: 1 trusts one proxy, not every hop; 0 trusts none', async (t) => {
  t.equal(parseConfig({ TRUST_PROXY: '1' }, HOST).trustProxy, 1)
  t.equal(parseConfig({ TRUST_PROXY: '0' }, HOST).trustProxy, false)
  t.equal(parseConfig({ TRUST_PROXY: '100' }, HOST).trustProxy, 100)
})

t.test('RETRY_PATTERN defaults by CALLBACK_MODE, MAX_TRIES to the pattern sum', async (t) => {
  const pinned = parseConfig({ CALLBACK_MODE: 'pinned' }, HOST)
  t.same(pinned.retryPattern, [2, 2, 1])
  t.equal(pinned.maxTries, 5)
  const custom = parseConfig({ RETRY_PATTERN: '[3,1]' }, HOST)
  t.equal(custom.maxTries, 4, 'sum of the given pattern')
  t.equal(parseConfig({ RETRY_PATTERN: '[3,1]', MAX_TRIES: '9' }, HOST).maxTries, 9, 'MAX_TRIES wins')
  t.same(parseConfig({ CALLBACK_MODE: 'pinned', RETRY_PATTERN: '[1]' }, HOST).retryPattern, [1])
})

t.test('hours and retryPolicy are derived from the variables', async (t) => {
  const config = parseConfig(
    {
      TIMEZONE: 'Europe/London',
      WORK_START: '08:30',
      WORK_END: '20:00',
      RETRY_SECONDS: '600',
      RETRY_PATTERN: '[1,2]',
    },
    HOST,
  )
  t.strictSame(config.hours, { zone: 'Europe/London', start: '08:30', end: '20:00' })
  t.strictSame(config.retryPolicy, {
    pattern: [1, 2],
    retrySeconds: 600,
    maxTries: 3,
    hours: { zone: 'Europe/London', start: '08:30', end: '20:00' },
  })
})

t.test('the result is deeply frozen and matches ConfigSchema', async (t) => {
  const config = parseConfig({ AMI_HOST: 'pbx' }, HOST)
  t.ok(Value.Check(ConfigSchema, config))
  for (const node of [
    config,
    config.ami,
    config.smtp,
    config.hours,
    config.retryPattern,
    config.retryPolicy,
  ]) {
    t.ok(Object.isFrozen(node))
  }
  t.throws(() => {
    ;(config.ami as { port: number }).port = 1
  }, TypeError)
  t.throws(() => {
    config.retryPattern.push(1)
  }, TypeError)
})

t.test('unknown variables are ignored', async (t) => {
  t.same(problemsOf({ PATH: '/usr/bin', NODE_ENV: 'production', FOO: 'bar' }), [])
})
