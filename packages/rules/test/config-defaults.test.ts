// Every configuration variable's default, and that an empty or blank value means "unset".
import t from 'tap'
import { CONFIG_VARIABLES, parseConfig } from '../src/config.js'
import { configValueOf, HOST } from './fixtures/config-helpers.js'

const DEFAULTS: Array<[string, unknown]> = [
  ['DATABASE_URL', 'sqlite:./data/dialer.sqlite'],
  ['WS_SECRET', undefined],
  ['HOST', '127.0.0.1'],
  ['PORT', 3000],
  ['CALLBACK_MODE', 'pool'],
  ['TIMEZONE', 'Asia/Kolkata'],
  ['WORK_START', '09:00'],
  ['WORK_END', '18:00'],
  ['RETRY_PATTERN', [2, 2, 2, 2]],
  ['RETRY_SECONDS', 3600],
  ['MAX_TRIES', 8],
  ['ABANDON_RETRY_SECONDS', 300],
  ['AMI_HOST', undefined],
  ['AMI_PORT', 5038],
  ['AMI_USERNAME', undefined],
  ['AMI_SECRET', undefined],
  ['REDIS_URL', undefined],
  ['TRUST_PROXY', false],
  ['SMTP_URL', undefined],
  ['RNR_MAIL_FROM', undefined],
  ['RNR_MAIL_TO', undefined],
  ['LOG_LEVEL', 'info'],
  ['REQUEST_LOG_LEVEL', 'info'],
  ['LOG_FORMAT', undefined],
  ['DB_MIGRATE_ON_START', true],
  ['RESERVATION_TIMEOUT_SECONDS', 900],
  ['DIAL_MODE', 'progressive'],
  ['DIALER_ID', undefined],
  ['PBX_NAME', 'default'],
  ['HEARTBEAT_SECONDS', 5],
  ['AMI_PING_SECONDS', 10],
  ['AMI_ACTION_TIMEOUT_MS', 5000],
  ['AGENT_CHANNEL_TEMPLATE', 'PJSIP/{extension}'],
  ['AGENT_DEVICE_TEMPLATE', undefined],
  ['CUSTOMER_CONTEXT', 'dialer-outbound'],
  ['CUSTOMER_CHANNEL_TEMPLATE', 'PJSIP/{number}@trunk'],
  ['DIAL_NUMBER_FORMAT', 'e164'],
  ['HOLD_CONTEXT', 'dialer-hold'],
  ['RING_TIMEOUT_SECONDS', 30],
  ['CALL_TIMEOUT_SECONDS', 7200],
  ['HOLD_TIMEOUT_SECONDS', 30],
  ['WRAP_SECONDS', 10],
  ['AGENT_CONTEXT', 'dialer-agents'],
  ['MAX_DIAL_LEVEL', 3],
  ['COMPLIANCE_SECONDS', 2],
  ['ABANDON_RATE_MAX', 0.03],
  ['ABANDON_WINDOW', '30d'],
  ['DIALER_HTTP_HOST', '127.0.0.1'],
  ['DIALER_HTTP_PORT', 3001],
  ['DIALER_HTTP_SECRET', undefined],
  ['MAX_CALLS_PER_NUMBER_PER_DAY', 0],
  ['MIN_SECONDS_BETWEEN_CALLS_TO_NUMBER', 0],
  ['PINNED_FALLBACK_MINUTES', 0],
  ['CALLING_HOURS', '08:00-21:00'],
  ['DEFAULT_COUNTRY', undefined],
  ['OUTBOUND_CALLER_ID', undefined],
  ['TRUNK_BREAKER_FAILURES', 5],
  ['TRUNK_BREAKER_PROBE_SECONDS', 30],
  ['AGENT_PAUSE_REASONS', ['break', 'lunch', 'training']],
  ['AMD', 'off'],
  ['AMD_RECORD_ONLY', false],
  ['AMD_MACHINE_ABANDON_SHARE', 0.2],
  ['AMD_RETRY_SECONDS', 3600],
  ['AMD_INITIAL_SILENCE_MS', undefined],
  ['AMD_GREETING_MS', undefined],
  ['AMD_AFTER_GREETING_SILENCE_MS', undefined],
  ['AMD_TOTAL_ANALYSIS_MS', undefined],
  ['AMD_MIN_WORD_MS', undefined],
  ['AMD_BETWEEN_WORDS_SILENCE_MS', undefined],
  ['AMD_MAX_WORDS', undefined],
  ['AMD_SILENCE_THRESHOLD', undefined],
  ['AMD_MAX_WORD_MS', undefined],
]

t.test('the table of defaults covers every variable', async (t) => {
  t.same(DEFAULTS.map(([name]) => name).sort(), CONFIG_VARIABLES.map((variable) => variable.name).sort())
})

for (const [name, expected] of DEFAULTS) {
  t.test(`${name} defaults to ${JSON.stringify(expected)}`, async (t) => {
    const config = parseConfig({}, HOST)
    t.strictSame(configValueOf(config, name), expected)
    t.strictSame(configValueOf(parseConfig({ [name]: '' }, HOST), name), expected, 'empty is unset')
    t.strictSame(configValueOf(parseConfig({ [name]: '  ' }, HOST), name), expected, 'blank is unset')
  })
}
