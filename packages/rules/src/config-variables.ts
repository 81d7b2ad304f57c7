// Which environment variable feeds which field of the configuration, and how its text becomes
// a candidate value. Readers never judge a value: text they cannot convert is passed on as
// the string itself, so the schema refuses it and ConfigError names the variable.

/** How a raw value may be shown in an error message. */
export type Exposure = 'plain' | 'secret' | 'url'

export interface ConfigVariable {
  /** The environment variable's name. */
  readonly name: string
  /** Where its value goes in the configuration object. */
  readonly path: readonly [string] | readonly [string, string]
  /** Text to candidate value (the unchanged text when it cannot be converted). */
  readonly read: (raw: string) => unknown
  /** `secret`: never shown; `url`: shown with any password masked. */
  readonly exposure: Exposure
}

const asText = (raw: string): unknown => raw

/**
 * AMD()'s nine parameters in its own order (apps/app_amd.c), by setting and configuration key. The
 * dialer passes each one that is set to the dialplan as a channel variable (`HD_` + the name without
 * `AMD_`'s unit); an unset one is left to amd.conf, whose stock values are Asterisk's defaults.
 */
export const AMD_PARAMETERS = [
  ['AMD_INITIAL_SILENCE_MS', 'initialSilenceMs', 'HD_AMD_INITIAL_SILENCE', 2500],
  ['AMD_GREETING_MS', 'greetingMs', 'HD_AMD_GREETING', 1500],
  ['AMD_AFTER_GREETING_SILENCE_MS', 'afterGreetingSilenceMs', 'HD_AMD_AFTER_GREETING_SILENCE', 800],
  ['AMD_TOTAL_ANALYSIS_MS', 'totalAnalysisMs', 'HD_AMD_TOTAL_ANALYSIS_TIME', 5000],
  ['AMD_MIN_WORD_MS', 'minWordMs', 'HD_AMD_MIN_WORD_LENGTH', 100],
  ['AMD_BETWEEN_WORDS_SILENCE_MS', 'betweenWordsSilenceMs', 'HD_AMD_BETWEEN_WORDS_SILENCE', 50],
  ['AMD_MAX_WORDS', 'maxWords', 'HD_AMD_MAX_WORDS', 3],
  ['AMD_SILENCE_THRESHOLD', 'silenceThreshold', 'HD_AMD_SILENCE_THRESHOLD', 256],
  ['AMD_MAX_WORD_MS', 'maxWordMs', 'HD_AMD_MAX_WORD_LENGTH', 5000],
] as const

const asInteger = (raw: string): unknown => (/^[+-]?\d+$/.test(raw) ? Number(raw) : raw)

const asNumber = (raw: string): unknown => (/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(raw) ? Number(raw) : raw)

// A Map rather than an object literal, so `constructor` or `__proto__` is not a boolean.
const BOOLEAN_WORDS: ReadonlyMap<string, boolean> = new Map([
  ['true', true],
  ['false', false],
  ['1', true],
  ['0', false],
  ['yes', true],
  ['no', false],
])

const asBoolean = (raw: string): unknown => BOOLEAN_WORDS.get(raw.toLowerCase()) ?? raw

/**
 * TRUST_PROXY: a boolean word, a hop count (digits: `1` is one proxy, not `true`, which would trust
 * every hop; `0` trusts none, the same as `false`), or a comma-separated list of addresses/CIDRs.
 */
const asTrustProxy = (raw: string): unknown => {
  if (/^\d+$/.test(raw)) return Number(raw) === 0 ? false : Number(raw)
  const word = BOOLEAN_WORDS.get(raw.toLowerCase())
  if (word !== undefined) return word
  return raw.split(',').map((part) => part.trim())
}

/** A comma-separated list: each item trimmed, empty items dropped (the schema then judges each). */
const asList = (raw: string): unknown =>
  raw
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')

const asJson = (raw: string): unknown => {
  try {
    return JSON.parse(raw)
  } catch {
    return raw
  }
}

function variable(
  name: string,
  path: ConfigVariable['path'],
  read: ConfigVariable['read'],
  exposure: Exposure = 'plain',
): ConfigVariable {
  return { name, path, read, exposure }
}

/** Every variable, in the order errors are reported: DECISIONS section 2, then the engine's. */
export const CONFIG_VARIABLES: readonly ConfigVariable[] = [
  variable('DATABASE_URL', ['databaseUrl'], asText, 'url'),
  variable('WS_SECRET', ['wsSecret'], asText, 'secret'),
  variable('HOST', ['host'], asText),
  variable('PORT', ['port'], asInteger),
  variable('CALLBACK_MODE', ['callbackMode'], asText),
  variable('TIMEZONE', ['timezone'], asText),
  variable('WORK_START', ['workStart'], asText),
  variable('WORK_END', ['workEnd'], asText),
  variable('RETRY_PATTERN', ['retryPattern'], asJson),
  variable('RETRY_SECONDS', ['retrySeconds'], asInteger),
  variable('MAX_TRIES', ['maxTries'], asInteger),
  variable('ABANDON_RETRY_SECONDS', ['abandonRetrySeconds'], asInteger),
  variable('AMI_HOST', ['ami', 'host'], asText),
  variable('AMI_PORT', ['ami', 'port'], asInteger),
  variable('AMI_USERNAME', ['ami', 'username'], asText),
  variable('AMI_SECRET', ['ami', 'secret'], asText, 'secret'),
  variable('REDIS_URL', ['redisUrl'], asText, 'url'),
  variable('TRUST_PROXY', ['trustProxy'], asTrustProxy),
  variable('SMTP_URL', ['smtp', 'url'], asText, 'url'),
  variable('RNR_MAIL_FROM', ['smtp', 'from'], asText),
  variable('RNR_MAIL_TO', ['smtp', 'to'], asText),
  variable('LOG_LEVEL', ['logLevel'], asText),
  variable('REQUEST_LOG_LEVEL', ['requestLogLevel'], asText),
  variable('LOG_FORMAT', ['logFormat'], asText),
  variable('DB_MIGRATE_ON_START', ['dbMigrateOnStart'], asBoolean),
  variable('RESERVATION_TIMEOUT_SECONDS', ['reservationTimeoutSeconds'], asInteger),
  variable('DIAL_MODE', ['dialMode'], asText),
  variable('DIALER_ID', ['dialerId'], asText),
  variable('PBX_NAME', ['pbxName'], asText),
  variable('HEARTBEAT_SECONDS', ['heartbeatSeconds'], asInteger),
  variable('AMI_PING_SECONDS', ['amiPingSeconds'], asInteger),
  variable('AMI_ACTION_TIMEOUT_MS', ['amiActionTimeoutMs'], asInteger),
  variable('AGENT_CHANNEL_TEMPLATE', ['agentChannelTemplate'], asText),
  variable('AGENT_DEVICE_TEMPLATE', ['agentDeviceTemplate'], asText),
  variable('CUSTOMER_CONTEXT', ['customerContext'], asText),
  variable('CUSTOMER_CHANNEL_TEMPLATE', ['customerChannelTemplate'], asText),
  variable('DIAL_NUMBER_FORMAT', ['dialNumberFormat'], asText),
  variable('HOLD_CONTEXT', ['holdContext'], asText),
  variable('AGENT_CONTEXT', ['agentContext'], asText),
  variable('RING_TIMEOUT_SECONDS', ['ringTimeoutSeconds'], asInteger),
  variable('CALL_TIMEOUT_SECONDS', ['callTimeoutSeconds'], asInteger),
  variable('HOLD_TIMEOUT_SECONDS', ['holdTimeoutSeconds'], asInteger),
  variable('WRAP_SECONDS', ['wrapSeconds'], asInteger),
  variable('MAX_DIAL_LEVEL', ['maxDialLevel'], asNumber),
  variable('COMPLIANCE_SECONDS', ['complianceSeconds'], asNumber),
  variable('ABANDON_RATE_MAX', ['abandonRateMax'], asNumber),
  variable('ABANDON_WINDOW', ['abandonWindow'], asText),
  variable('DIALER_HTTP_HOST', ['dialerHttpHost'], asText),
  variable('DIALER_HTTP_PORT', ['dialerHttpPort'], asInteger),
  variable('DIALER_HTTP_SECRET', ['dialerHttpSecret'], asText, 'secret'),
  variable('MAX_CALLS_PER_NUMBER_PER_DAY', ['maxCallsPerNumberPerDay'], asInteger),
  variable('MIN_SECONDS_BETWEEN_CALLS_TO_NUMBER', ['minSecondsBetweenCallsToNumber'], asInteger),
  variable('PINNED_FALLBACK_MINUTES', ['pinnedFallbackMinutes'], asInteger),
  variable('CALLING_HOURS', ['callingHours'], asText),
  variable('DEFAULT_COUNTRY', ['defaultCountry'], (raw) => raw.toUpperCase()),
  variable('OUTBOUND_CALLER_ID', ['outboundCallerId'], asText),
  variable('TRUNK_BREAKER_FAILURES', ['trunkBreakerFailures'], asInteger),
  variable('TRUNK_BREAKER_PROBE_SECONDS', ['trunkBreakerProbeSeconds'], asInteger),
  variable('AGENT_PAUSE_REASONS', ['agentPauseReasons'], asList),
  variable('AMD', ['amd', 'mode'], asText),
  variable('AMD_RECORD_ONLY', ['amd', 'recordOnly'], asBoolean),
  variable('AMD_MACHINE_ABANDON_SHARE', ['amd', 'machineAbandonShare'], asNumber),
  variable('AMD_RETRY_SECONDS', ['amd', 'retrySeconds'], asInteger),
  ...AMD_PARAMETERS.map(([name, key]) => variable(name, ['amd', key], asInteger)),
]
