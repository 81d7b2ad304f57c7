// The configuration's one schema. It holds every rule and every fixed default; `Config` is
// derived from it, and config.ts only turns environment strings into candidate values and
// reports what the schema refuses. Each `description` completes the sentence
// "<VARIABLE> must be ...", which is how ConfigError words a refusal.
import {
  FormatRegistry,
  type Static,
  type TInteger,
  type TOptional,
  type TSchema,
  Type,
} from '@sinclair/typebox'
import { AMD_PARAMETERS } from './config-variables.js'
import { DIAL_FORMATS, isPhoneCountry } from './phone-identity.js'
import { isProxyAddress } from './proxy-address.js'
import { isIanaZone } from './zoned-time.js'

export const IANA_TIME_ZONE_FORMAT = 'iana-time-zone'
FormatRegistry.Set(IANA_TIME_ZONE_FORMAT, isIanaZone)
export const PROXY_ADDRESS_FORMAT = 'proxy-address'
FormatRegistry.Set(PROXY_ADDRESS_FORMAT, isProxyAddress)
export const PHONE_COUNTRY_FORMAT = 'phone-country'
FormatRegistry.Set(PHONE_COUNTRY_FORMAT, isPhoneCountry)

/** pino's level names, `silent` included. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

/** How the processes write their log: one JSON object a line, or human-readable (pino-pretty). */
export const LOG_FORMATS = ['json', 'pretty'] as const
export type LogFormat = (typeof LOG_FORMATS)[number]

// Seconds and milliseconds end up in setTimeout, which overflows past 2^31-1 ms (24.8 days).
const MAX_TIMER_MS = 2_147_483_647
const MAX_TIMER_SECONDS = Math.floor(MAX_TIMER_MS / 1000)

function seconds(minimum: number, defaultValue: number) {
  return Type.Integer({
    minimum,
    maximum: MAX_TIMER_SECONDS,
    default: defaultValue,
    description: `an integer ${minimum}-${MAX_TIMER_SECONDS} (seconds)`,
  })
}

function port(defaultValue: number) {
  return Type.Integer({
    minimum: 1,
    maximum: 65535,
    default: defaultValue,
    description: 'an integer 1-65535',
  })
}

function clockTime(defaultValue: string) {
  return Type.String({
    pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
    default: defaultValue,
    description: 'a local time HH:MM between 00:00 and 23:59',
  })
}

function oneOf<const Value extends string>(values: readonly Value[], defaultValue: Value) {
  return Type.Union(
    values.map((value) => Type.Literal(value)),
    { default: defaultValue, description: `one of ${values.join(', ')}` },
  )
}

function text(description: string, options: { pattern?: string; default?: string } = {}) {
  return Type.String({ minLength: 1, description, ...options })
}

/** OUTBOUND_CALLER_ID: `"Name" <number>`; the name has no character Asterisk would read as syntax. */
export const OUTBOUND_CALLER_ID_PATTERN = String.raw`"[^"<>\\\x00-\x1f\x7f]{1,40}" <\+?[0-9]{3,20}>`

/** AMD()'s parameters: unset by default (amd.conf's values, Asterisk's defaults, apply). */
function amdParameters() {
  const out: Record<(typeof AMD_PARAMETERS)[number][1], TOptional<TInteger>> = {} as never
  for (const [, key, , stock] of AMD_PARAMETERS) {
    out[key] = Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 600_000,
        description: `an integer 1-600000 (Asterisk's default ${stock})`,
      }),
    )
  }
  return out
}

/** A context or dialplan name as Asterisk takes it: no white space. */
const ASTERISK_NAME = '^\\S+$'

const WorkingHoursSchema = Type.Object({
  zone: Type.String({ format: IANA_TIME_ZONE_FORMAT }),
  start: clockTime('09:00'),
  end: clockTime('18:00'),
})

const RetryPatternSchema = Type.Array(Type.Integer({ minimum: 0 }), {
  minItems: 1,
  contains: Type.Integer({ minimum: 1 }),
  description: 'a JSON array of non-negative integers with at least one above 0, such as [2,2,2,2]',
})

/** Everything read from the environment, before the derived `hours` and `retryPolicy`. */
export const EnvConfigSchema = Type.Object({
  databaseUrl: text('a mysql://user:pass@host:port/db or sqlite:PATH URL', {
    pattern: '^(mysql://|sqlite:).+',
    default: 'sqlite:./data/dialer.sqlite',
  }),
  // Sent in HTTP headers, so only printable ASCII can ever match.
  wsSecret: Type.Optional(
    text('printable ASCII characters (it is sent in HTTP headers)', { pattern: '^[ -~]+$' }),
  ),
  host: text('a host name or IP address', { default: '127.0.0.1' }),
  port: port(3000),
  callbackMode: oneOf(['pool', 'pinned'], 'pool'),
  // No fixed default: it is the host's zone, which the caller passes in.
  timezone: Type.String({
    format: IANA_TIME_ZONE_FORMAT,
    description: 'an IANA time zone such as Europe/London or Asia/Kolkata',
  }),
  workStart: clockTime('09:00'),
  workEnd: clockTime('18:00'),
  // Default depends on callbackMode (defaultRetryPattern).
  retryPattern: RetryPatternSchema,
  retrySeconds: seconds(0, 3600),
  // Default is the sum of retryPattern.
  maxTries: Type.Integer({ minimum: 1, maximum: 1000, description: 'an integer 1-1000' }),
  abandonRetrySeconds: seconds(0, 300),
  ami: Type.Object({
    host: Type.Optional(text('a host name or IP address')),
    port: port(5038),
    username: Type.Optional(text('a non-empty string')),
    secret: Type.Optional(text('a non-empty string')),
  }),
  redisUrl: Type.Optional(text('a redis:// or rediss:// URL', { pattern: '^rediss?://.+' })),
  // Fastify's `trustProxy` forms (DECISIONS section 3): every hop, none, the nearest N hops, or the
  // proxies' own addresses. The client is the nearest X-Forwarded-For address not trusted.
  trustProxy: Type.Union(
    [
      Type.Boolean(),
      Type.Integer({ minimum: 1, maximum: 100 }),
      Type.Array(Type.String({ format: PROXY_ADDRESS_FORMAT }), { minItems: 1 }),
    ],
    {
      default: false,
      description:
        'true, false, a hop count 0-100, or a comma-separated list of proxy IP addresses or CIDR ranges',
    },
  ),
  smtp: Type.Object({
    url: Type.Optional(text('an smtp:// or smtps:// URL', { pattern: '^smtps?://.+' })),
    from: Type.Optional(text('an e-mail address', { pattern: '@' })),
    to: Type.Optional(text('one or more e-mail addresses, comma-separated', { pattern: '@' })),
  }),
  logLevel: oneOf(LOG_LEVELS, 'info'),
  /** The API's line per HTTP request: its level (`silent`: none). `pnpm start` sets `debug`. */
  requestLogLevel: oneOf(LOG_LEVELS, 'info'),
  // No default here: unset means pretty on a terminal, JSON otherwise (chooseLogFormat).
  logFormat: Type.Optional(
    Type.Union(
      LOG_FORMATS.map((value) => Type.Literal(value)),
      { description: `one of ${LOG_FORMATS.join(', ')}` },
    ),
  ),
  dbMigrateOnStart: Type.Boolean({ default: true, description: 'a boolean (true/false, 1/0, yes/no)' }),
  reservationTimeoutSeconds: seconds(1, 900),
  dialMode: oneOf(['progressive', 'predictive'], 'progressive'),
  // No default here: the dialer derives one from the host name and process id.
  dialerId: Type.Optional(text('1-64 characters without white space', { pattern: '^\\S{1,64}$' })),
  /** The PBX this dialer serves: it claims only for that PBX's agents (`dialer_employee.pbx`). */
  pbxName: text('1-64 letters, digits, dots, dashes or underscores', {
    pattern: '^[A-Za-z0-9._-]{1,64}$',
    default: 'default',
  }),
  heartbeatSeconds: seconds(1, 5),
  amiPingSeconds: seconds(1, 10),
  amiActionTimeoutMs: Type.Integer({
    minimum: 1,
    maximum: MAX_TIMER_MS,
    default: 5000,
    description: `an integer 1-${MAX_TIMER_MS} (milliseconds)`,
  }),
  agentChannelTemplate: text('a channel template containing {extension}', {
    pattern: '\\{extension\\}',
    default: 'PJSIP/{extension}',
  }),
  // No default here: derived from AGENT_CHANNEL_TEMPLATE (deskStateSource in desk-state-source.ts).
  agentDeviceTemplate: Type.Optional(
    text(
      'a device name containing {extension} (PJSIP/{extension}, Custom:desk{extension}) or hint:{extension}@context',
      {
        pattern: '^(hint:[^@\\s]*\\{extension\\}[^@\\s]*@[^@\\s]+|[^\\s:/]+[:/]\\S*\\{extension\\}\\S*)$',
      },
    ),
  ),
  customerContext: text('a dialplan context name without white space', {
    pattern: ASTERISK_NAME,
    default: 'dialer-outbound',
  }),
  customerChannelTemplate: text(
    'a channel template containing {number}, {e164}, {international}, {national} or {digits}',
    { pattern: '\\{(number|e164|international|national|digits)\\}', default: 'PJSIP/{number}@trunk' },
  ),
  // The form of the customer's number handed to Asterisk as `{number}` and as progressive mode's
  // Exten. `e164` (`+3612345201`) is the one form every number is unambiguous in: a US trunk handed
  // `3612345201` or `13612345201` rings Texas, not Budapest. See phone-identity.ts.
  dialNumberFormat: oneOf(DIAL_FORMATS, 'e164'),
  holdContext: text('a dialplan context name without white space', {
    pattern: ASTERISK_NAME,
    default: 'dialer-hold',
  }),
  agentContext: text('a dialplan context name without white space', {
    pattern: ASTERISK_NAME,
    default: 'dialer-agents',
  }),
  ringTimeoutSeconds: seconds(1, 30),
  callTimeoutSeconds: seconds(1, 7200),
  holdTimeoutSeconds: seconds(1, 30),
  wrapSeconds: seconds(0, 10),
  // Lines dialed per idle agent in predictive mode; fractional levels (1.5) are usual.
  maxDialLevel: Type.Number({ minimum: 1, maximum: 10, default: 3, description: 'a number 1-10' }),
  // Ofcom's rule: a live call must reach an agent within 2 s or it counts as abandoned.
  complianceSeconds: Type.Number({
    exclusiveMinimum: 0,
    maximum: 60,
    default: 2,
    description: 'a number of seconds above 0, at most 60',
  }),
  abandonRateMax: Type.Number({
    minimum: 0,
    maximum: 1,
    default: 0.03,
    description: 'a fraction 0-1 such as 0.03',
  }),
  abandonWindow: oneOf(['30d', '24h'], '30d'),
  // The dialer's own HTTP listener (/healthz, /metrics): loopback by default; port 0 turns it off.
  dialerHttpHost: text('a host name or IP address', { default: '127.0.0.1' }),
  dialerHttpPort: Type.Integer({
    minimum: 0,
    maximum: 65535,
    default: 3001,
    description: 'an integer 0-65535 (0 turns the listener off)',
  }),
  // Sent in HTTP headers, so only printable ASCII can ever match.
  dialerHttpSecret: Type.Optional(
    text('printable ASCII characters (it is sent in HTTP headers)', { pattern: '^[ -~]+$' }),
  ),
  // Calling rules (issue 16). 0 turns a cap off, which is the default: the spec has none.
  maxCallsPerNumberPerDay: Type.Integer({
    minimum: 0,
    maximum: 1000,
    default: 0,
    description: 'an integer 0-1000 (0: no cap)',
  }),
  minSecondsBetweenCallsToNumber: seconds(0, 0),
  pinnedFallbackMinutes: Type.Integer({
    minimum: 0,
    maximum: 525_600,
    default: 0,
    description: 'an integer 0-525600 (minutes; 0: never)',
  }),
  // TCPA / TSR: 8 a.m. to 9 p.m. at the called party's location.
  callingHours: Type.String({
    pattern: '^(off|([01][0-9]|2[0-3]):[0-5][0-9]-([01][0-9]|2[0-3]):[0-5][0-9])$',
    default: '08:00-21:00',
    description: 'a local window HH:MM-HH:MM (start before end) or off',
  }),
  defaultCountry: Type.Optional(
    Type.String({
      format: PHONE_COUNTRY_FORMAT,
      description: 'a two-letter country code (ISO 3166-1) with a telephone numbering plan, such as US or IN',
    }),
  ),
  // The centre's own caller ID on every customer leg (US TSR 16 CFR 310.4(a)(8), Ofcom: a valid,
  // diallable CLI). Unset: the dialer presents none and the trunk's own setting applies; the
  // customer's own number is never presented to the customer. The name survives Asterisk's AMI
  // `Variable` parsing and ast_callerid_parse only without " < > \ and control characters.
  outboundCallerId: Type.Optional(
    Type.String({
      pattern: `^${OUTBOUND_CALLER_ID_PATTERN}$`,
      description:
        'a caller ID "Name" <number> such as "Hold Co" <+442079460000>: a name of 1-40 characters without " < > or \\, a number of 3-20 digits with an optional leading +',
    }),
  ),
  // Trunk breaker: this many customer legs in a row whose channel could not be created stop the
  // dialing (0: never); one call is tried every TRUNK_BREAKER_PROBE_SECONDS until one gets through.
  trunkBreakerFailures: Type.Integer({
    minimum: 0,
    maximum: 1000,
    default: 5,
    description: 'an integer 0-1000 (0: never stop)',
  }),
  trunkBreakerProbeSeconds: seconds(1, 30),
  // The reasons an agent may give for a pause on the agent interface (docs/agent-interface.md).
  agentPauseReasons: Type.Array(Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,31}$' }), {
    minItems: 1,
    maxItems: 50,
    uniqueItems: true,
    default: ['break', 'lunch', 'training'],
    description:
      'a comma-separated list of 1-50 different reasons, each 1-32 lower-case letters, digits, _ or - (such as break,lunch,training)',
  }),
  // Answering machine detection (DECISIONS section 11): off by default. Record-only: the verdict is
  // written on the attempt and every call goes on to an agent, so a centre measures before trusting.
  amd: Type.Object({
    mode: oneOf(['off', 'predictive', 'progressive', 'both'], 'off'),
    recordOnly: Type.Boolean({ default: false, description: 'a boolean (true/false, 1/0, yes/no)' }),
    // The share of the calls AMD hung up that the governor counts as abandoned: the centre's estimate
    // of the live people stock AMD() takes for machines (15-25%; 3-5% for a tuned profile).
    machineAbandonShare: Type.Number({
      minimum: 0,
      maximum: 1,
      default: 0.2,
      description: 'a fraction 0-1 such as 0.2',
    }),
    retrySeconds: seconds(0, 3600),
    ...amdParameters(),
  }),
})

/** The validated, frozen configuration. */
export const ConfigSchema = Type.Object({
  ...EnvConfigSchema.properties,
  /** WORK_START / WORK_END in TIMEZONE, ready for the working-hours functions. */
  hours: WorkingHoursSchema,
  /** CALLING_HOURS as a daily window (applied in each customer's zone); null when `off`. */
  customerHours: Type.Union([
    Type.Null(),
    Type.Object({ start: clockTime('08:00'), end: clockTime('21:00') }),
  ]),
  /** RETRY_PATTERN, RETRY_SECONDS, MAX_TRIES and the hours, ready for nextAttempt. */
  retryPolicy: Type.Object({
    pattern: RetryPatternSchema,
    retrySeconds: seconds(0, 3600),
    maxTries: Type.Integer({ minimum: 1 }),
    hours: WorkingHoursSchema,
  }),
})

export type EnvConfig = Static<typeof EnvConfigSchema>
export type Config = Static<typeof ConfigSchema>

/** The sub-schema at `path` inside EnvConfigSchema (used to word error messages). */
export function envSchemaAt(path: readonly string[]): TSchema {
  let schema: TSchema = EnvConfigSchema
  for (const key of path) {
    schema = (schema.properties as Record<string, TSchema>)[key] as TSchema
  }
  return schema
}
