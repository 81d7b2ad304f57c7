// How refusals are reported: each variable by name with what is wrong, all of them at once,
// secrets never echoed.
import t from 'tap'
import { CONFIG_VARIABLES, ConfigError, parseConfig } from '../src/config.js'
import { HOST, problemsOf } from './fixtures/config-helpers.js'

const PAUSE_REASONS_RULE =
  'a comma-separated list of 1-50 different reasons, each 1-32 lower-case letters, digits, _ or - (such as break,lunch,training)'

// One refused value per rule: [variable, value, what the variable must be]. The message is
// `<VARIABLE> must be <rule>, got "<value>"`.
const TRUST_PROXY_RULE =
  'true, false, a hop count 0-100, or a comma-separated list of proxy IP addresses or CIDR ranges'
const PATTERN_RULE = 'a JSON array of non-negative integers with at least one above 0, such as [2,2,2,2]'
const CALLER_ID_RULE =
  'a caller ID "Name" <number> such as "Hold Co" <+442079460000>: a name of 1-40 characters without " < > or \\, a number of 3-20 digits with an optional leading +'
const REFUSED: Array<[string, string, string]> = [
  ['DATABASE_URL', 'postgres://db/x', 'a mysql://user:pass@host:port/db or sqlite:PATH URL'],
  ['DATABASE_URL', 'sqlite:', 'a mysql://user:pass@host:port/db or sqlite:PATH URL'],
  ['PORT', 'abc', 'an integer 1-65535'],
  ['PORT', '0', 'an integer 1-65535'],
  ['PORT', '65536', 'an integer 1-65535'],
  ['PORT', '80.5', 'an integer 1-65535'],
  ['CALLBACK_MODE', 'A', 'one of pool, pinned'],
  ['TIMEZONE', 'Asia/Mumbai', 'an IANA time zone such as Europe/London or Asia/Kolkata'],
  ['TIMEZONE', '+05:30', 'an IANA time zone such as Europe/London or Asia/Kolkata'],
  ['WORK_START', '9:00', 'a local time HH:MM between 00:00 and 23:59'],
  ['WORK_END', '24:00', 'a local time HH:MM between 00:00 and 23:59'],
  ['RETRY_PATTERN', '2,2,2', PATTERN_RULE],
  ['RETRY_PATTERN', '[]', PATTERN_RULE],
  ['RETRY_PATTERN', '[0,0]', PATTERN_RULE],
  ['RETRY_PATTERN', '[2,-1]', PATTERN_RULE],
  ['RETRY_PATTERN', '[1.5]', PATTERN_RULE],
  ['RETRY_SECONDS', '-1', 'an integer 0-2147483 (seconds)'],
  ['MAX_TRIES', '0', 'an integer 1-1000'],
  ['ABANDON_RETRY_SECONDS', '5m', 'an integer 0-2147483 (seconds)'],
  ['AMI_PORT', '70000', 'an integer 1-65535'],
  ['REDIS_URL', 'localhost:6379', 'a redis:// or rediss:// URL'],
  ['TRUST_PROXY', 'maybe', TRUST_PROXY_RULE],
  ['TRUST_PROXY', 'constructor', TRUST_PROXY_RULE],
  ['TRUST_PROXY', '101', TRUST_PROXY_RULE],
  ['TRUST_PROXY', '10.0.0.1, proxy.internal', TRUST_PROXY_RULE],
  ['TRUST_PROXY', '10.0.0.0/33', TRUST_PROXY_RULE],
  ['TRUST_PROXY', 'fd00::/129', TRUST_PROXY_RULE],
  ['TRUST_PROXY', 'fd00::/255.0.0.0', TRUST_PROXY_RULE],
  ['TRUST_PROXY', 'proxy/8', TRUST_PROXY_RULE],
  ['TRUST_PROXY', '10.0.0.0/8x', TRUST_PROXY_RULE],
  ['TRUST_PROXY', '10.0.0.1,', TRUST_PROXY_RULE],
  ['TRUST_PROXY', '-1', TRUST_PROXY_RULE],
  ['SMTP_URL', 'mail.example.com', 'an smtp:// or smtps:// URL'],
  ['RNR_MAIL_FROM', 'dialer', 'an e-mail address'],
  ['RNR_MAIL_TO', 'ops', 'one or more e-mail addresses, comma-separated'],
  ['LOG_LEVEL', 'verbose', 'one of fatal, error, warn, info, debug, trace, silent'],
  ['REQUEST_LOG_LEVEL', 'loud', 'one of fatal, error, warn, info, debug, trace, silent'],
  ['LOG_FORMAT', 'text', 'one of json, pretty'],
  ['DB_MIGRATE_ON_START', 'on', 'a boolean (true/false, 1/0, yes/no)'],
  ['RESERVATION_TIMEOUT_SECONDS', '0', 'an integer 1-2147483 (seconds)'],
  ['DIAL_MODE', 'preview', 'one of progressive, predictive'],
  ['DIALER_ID', 'dialer one', '1-64 characters without white space'],
  ['PBX_NAME', 'east side', '1-64 letters, digits, dots, dashes or underscores'],
  ['HEARTBEAT_SECONDS', '9999999', 'an integer 1-2147483 (seconds)'],
  ['AMI_PING_SECONDS', 'ten', 'an integer 1-2147483 (seconds)'],
  ['AMI_ACTION_TIMEOUT_MS', '2147483648', 'an integer 1-2147483647 (milliseconds)'],
  ['AGENT_CHANNEL_TEMPLATE', 'PJSIP/1001', 'a channel template containing {extension}'],
  [
    'AGENT_DEVICE_TEMPLATE',
    'hint:1001',
    'a device name containing {extension} (PJSIP/{extension}, Custom:desk{extension}) or hint:{extension}@context',
  ],
  ['CUSTOMER_CONTEXT', 'dialer outbound', 'a dialplan context name without white space'],
  [
    'CUSTOMER_CHANNEL_TEMPLATE',
    'PJSIP/{phone}@trunk',
    'a channel template containing {number}, {e164}, {international}, {national} or {digits}',
  ],
  ['DIAL_NUMBER_FORMAT', 'plus', 'one of e164, international, national, digits'],
  ['HOLD_CONTEXT', 'dialer hold', 'a dialplan context name without white space'],
  ['AGENT_CONTEXT', 'agent desks', 'a dialplan context name without white space'],
  ['RING_TIMEOUT_SECONDS', '0', 'an integer 1-2147483 (seconds)'],
  ['CALL_TIMEOUT_SECONDS', '2h', 'an integer 1-2147483 (seconds)'],
  ['HOLD_TIMEOUT_SECONDS', '-5', 'an integer 1-2147483 (seconds)'],
  ['WRAP_SECONDS', '-1', 'an integer 0-2147483 (seconds)'],
  ['MAX_DIAL_LEVEL', '0.5', 'a number 1-10'],
  ['MAX_DIAL_LEVEL', 'three', 'a number 1-10'],
  ['COMPLIANCE_SECONDS', '0', 'a number of seconds above 0, at most 60'],
  ['ABANDON_RATE_MAX', '3%', 'a fraction 0-1 such as 0.03'],
  ['ABANDON_RATE_MAX', '1.5', 'a fraction 0-1 such as 0.03'],
  ['ABANDON_WINDOW', '7d', 'one of 30d, 24h'],
  ['DIALER_HTTP_PORT', '-1', 'an integer 0-65535 (0 turns the listener off)'],
  ['DIALER_HTTP_PORT', '65536', 'an integer 0-65535 (0 turns the listener off)'],
  ['MAX_CALLS_PER_NUMBER_PER_DAY', '-1', 'an integer 0-1000 (0: no cap)'],
  ['MIN_SECONDS_BETWEEN_CALLS_TO_NUMBER', '1.5', 'an integer 0-2147483 (seconds)'],
  ['PINNED_FALLBACK_MINUTES', '525601', 'an integer 0-525600 (minutes; 0: never)'],
  ['CALLING_HOURS', '8-21', 'a local window HH:MM-HH:MM (start before end) or off'],
  [
    'DEFAULT_COUNTRY',
    'XX',
    'a two-letter country code (ISO 3166-1) with a telephone numbering plan, such as US or IN',
  ],
  ['OUTBOUND_CALLER_ID', '+442079460000', CALLER_ID_RULE],
  ['OUTBOUND_CALLER_ID', 'Hold Co <+442079460000>', CALLER_ID_RULE],
  ['OUTBOUND_CALLER_ID', '"" <+442079460000>', CALLER_ID_RULE],
  ['OUTBOUND_CALLER_ID', '"Hold Co" <020 7946 0000>', CALLER_ID_RULE],
  ['OUTBOUND_CALLER_ID', '"Hold Co" <12>', CALLER_ID_RULE],
  ['OUTBOUND_CALLER_ID', '"Hold <Co>" <+442079460000>', CALLER_ID_RULE],
  ['OUTBOUND_CALLER_ID', '"Hold\\Co" <+442079460000>', CALLER_ID_RULE],
  ['OUTBOUND_CALLER_ID', `"${'x'.repeat(41)}" <+442079460000>`, CALLER_ID_RULE],
  ['TRUNK_BREAKER_FAILURES', '-1', 'an integer 0-1000 (0: never stop)'],
  ['TRUNK_BREAKER_FAILURES', 'five', 'an integer 0-1000 (0: never stop)'],
  ['TRUNK_BREAKER_PROBE_SECONDS', '0', 'an integer 1-2147483 (seconds)'],
  ['AGENT_PAUSE_REASONS', 'Break,lunch', PAUSE_REASONS_RULE],
  ['AGENT_PAUSE_REASONS', 'lunch,lunch', PAUSE_REASONS_RULE],
  ['AGENT_PAUSE_REASONS', ',', PAUSE_REASONS_RULE],
  ['AGENT_PAUSE_REASONS', `${'x'.repeat(33)}`, PAUSE_REASONS_RULE],
  ['AMD', 'on', 'one of off, predictive, progressive, both'],
  ['AMD_RECORD_ONLY', 'maybe', 'a boolean (true/false, 1/0, yes/no)'],
  ['AMD_MACHINE_ABANDON_SHARE', '20%', 'a fraction 0-1 such as 0.2'],
  ['AMD_MACHINE_ABANDON_SHARE', '1.5', 'a fraction 0-1 such as 0.2'],
  ['AMD_RETRY_SECONDS', '-1', 'an integer 0-2147483 (seconds)'],
  ['AMD_INITIAL_SILENCE_MS', '0', "an integer 1-600000 (Asterisk's default 2500)"],
  ['AMD_GREETING_MS', '1.5', "an integer 1-600000 (Asterisk's default 1500)"],
  ['AMD_AFTER_GREETING_SILENCE_MS', 'x', "an integer 1-600000 (Asterisk's default 800)"],
  ['AMD_TOTAL_ANALYSIS_MS', '600001', "an integer 1-600000 (Asterisk's default 5000)"],
  ['AMD_MIN_WORD_MS', '-5', "an integer 1-600000 (Asterisk's default 100)"],
  ['AMD_BETWEEN_WORDS_SILENCE_MS', '0', "an integer 1-600000 (Asterisk's default 50)"],
  ['AMD_MAX_WORDS', 'three', "an integer 1-600000 (Asterisk's default 3)"],
  ['AMD_SILENCE_THRESHOLD', '0', "an integer 1-600000 (Asterisk's default 256)"],
  ['AMD_MAX_WORD_MS', '0', "an integer 1-600000 (Asterisk's default 5000)"],
]

t.test('every variable with rules has a refused value in the table', async (t) => {
  const free = new Set(['HOST', 'AMI_HOST', 'AMI_USERNAME', 'AMI_SECRET', 'DIALER_HTTP_HOST']) // any non-blank text
  // WS_SECRET, DIALER_HTTP_SECRET: below
  const covered = new Set([...REFUSED.map(([name]) => name), 'WS_SECRET', 'DIALER_HTTP_SECRET'])
  for (const { name } of CONFIG_VARIABLES) {
    t.ok(free.has(name) || covered.has(name), name)
  }
})

for (const [name, raw, rule] of REFUSED) {
  t.test(`${name}=${raw} is refused, naming ${name}`, async (t) => {
    t.strictSame(problemsOf({ [name]: raw }), [`${name} must be ${rule}, got ${JSON.stringify(raw)}`])
  })
}

t.test('WS_SECRET is refused without showing it', async (t) => {
  t.strictSame(problemsOf({ WS_SECRET: 'sécret' }), [
    'WS_SECRET must be printable ASCII characters (it is sent in HTTP headers), got a value that is not shown',
  ])
})

t.test('DIALER_HTTP_SECRET is refused without showing it', async (t) => {
  t.strictSame(problemsOf({ DIALER_HTTP_SECRET: 'sécret' }), [
    'DIALER_HTTP_SECRET must be printable ASCII characters (it is sent in HTTP headers), got a value that is not shown',
  ])
})

t.test('WORK_START must be before WORK_END', async (t) => {
  t.strictSame(problemsOf({ WORK_START: '18:00', WORK_END: '09:00' }), [
    'WORK_END must be later than WORK_START, got WORK_START="18:00" WORK_END="09:00"',
  ])
  t.strictSame(problemsOf({ WORK_START: '09:00', WORK_END: '09:00' }), [
    'WORK_END must be later than WORK_START, got WORK_START="09:00" WORK_END="09:00"',
  ])
  t.strictSame(
    problemsOf({ WORK_START: '19:00' }),
    ['WORK_END must be later than WORK_START, got WORK_START="19:00" WORK_END="18:00"'],
    'against the default end',
  )
  t.strictSame(problemsOf({ WORK_START: '09:00', WORK_END: '09:01' }), [])
})

t.test('a bad host zone is reported as TIMEZONE, saying it is the default', async (t) => {
  t.strictSame(problemsOf({}, { hostZone: 'Local/Nowhere' }), [
    'TIMEZONE must be an IANA time zone such as Europe/London or Asia/Kolkata, got "Local/Nowhere" (the default, as TIMEZONE is unset)',
  ])
  t.strictSame(
    problemsOf({ TIMEZONE: 'Asia/Kolkata' }, { hostZone: 'Local/Nowhere' }),
    [],
    'TIMEZONE set: no problem',
  )
})

t.test('every problem is reported at once, in variable order', async (t) => {
  const problems = problemsOf({
    PORT: 'abc',
    TIMEZONE: 'Mars/Olympus',
    RETRY_PATTERN: 'nope',
    LOG_LEVEL: 'loud',
    AMI_PORT: '-1',
    WORK_START: '20:00',
    WORK_END: '08:00',
  })
  t.strictSame(
    problems.map((problem) => problem.split(' ')[0]),
    ['PORT', 'TIMEZONE', 'RETRY_PATTERN', 'AMI_PORT', 'LOG_LEVEL', 'WORK_END'],
  )
  t.notOk(
    problems.some((problem) => problem.startsWith('MAX_TRIES')),
    'a bad RETRY_PATTERN does not also blame the MAX_TRIES default',
  )
})

t.test('ConfigError lists every problem in its message', async (t) => {
  const error = t.throws(() => parseConfig({ PORT: 'abc', DIAL_MODE: 'x' }, HOST)) as ConfigError
  t.ok(error instanceof ConfigError)
  t.ok(error instanceof Error)
  t.equal(error.name, 'ConfigError')
  t.equal(
    error.message,
    [
      'invalid configuration:',
      '  - PORT must be an integer 1-65535, got "abc"',
      '  - DIAL_MODE must be one of progressive, predictive, got "x"',
    ].join('\n'),
  )
  t.equal(error.problems.length, 2)
})

t.test('refusals never echo a secret or a URL password', async (t) => {
  const problems = problemsOf({
    WS_SECRET: 'tøp-secret',
    DATABASE_URL: 'postgres://dialer:hunter2@db/dialer',
    REDIS_URL: 'redis:/:hunter3@cache',
    SMTP_URL: 'smtp:mailer:hunter4@mail',
  })
  t.equal(problems.length, 4)
  for (const secret of ['tøp-secret', 'hunter2', 'hunter3', 'hunter4']) {
    t.notOk(problems.join('\n').includes(secret), secret)
  }
  t.match(problems[0], /got "postgres:\/\/dialer:\*\*\*@db\/dialer"$/)
})
