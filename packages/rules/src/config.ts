// Reads the environment once at boot into one frozen, validated configuration object.
// The rules live in config-schema.ts; this file converts text, fills the defaults that depend
// on other values, and words every refusal with the variable's name.
import { Value } from '@sinclair/typebox/value'
import { type Config, EnvConfigSchema, envSchemaAt } from './config-schema.js'
import { CONFIG_VARIABLES, type ConfigVariable } from './config-variables.js'
import { maskUrlCredentials } from './mask-secrets.js'
import { defaultRetryPattern } from './retry-schedule.js'

export {
  type Config,
  ConfigSchema,
  EnvConfigSchema,
  LOG_FORMATS,
  LOG_LEVELS,
  type LogFormat,
} from './config-schema.js'
export { AMD_PARAMETERS, CONFIG_VARIABLES, type ConfigVariable } from './config-variables.js'
export { describeConfig } from './describe-config.js'

/** Thrown by parseConfig; `problems` holds one sentence per bad variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError'
  readonly problems: readonly string[]

  constructor(problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`)
    this.problems = problems
  }
}

export interface ConfigDefaults {
  /** The host's IANA zone, TIMEZONE's default (the caller reads it; this module reads nothing). */
  hostZone: string
}

type Environment = Record<string, string | undefined>
type Candidate = Record<string, unknown>

/**
 * Validates every variable and returns the deeply frozen configuration, or throws one
 * ConfigError listing every bad variable (not only the first), each by name.
 *
 * Values are trimmed; an empty or blank value counts as unset (a `KEY=` line in an env file
 * means "use the default", not "the empty string").
 */
export function parseConfig(env: Environment, defaults: ConfigDefaults): Config {
  const raw = readRawValues(env)
  const candidate = buildCandidate(raw, defaults)
  const problems = [
    ...schemaProblems(candidate, raw),
    ...workWindowProblems(candidate),
    ...callingHoursProblems(candidate),
  ]
  if (problems.length > 0 || !Value.Check(EnvConfigSchema, candidate)) {
    throw new ConfigError(problems)
  }
  const hours = { zone: candidate.timezone, start: candidate.workStart, end: candidate.workEnd }
  const [callStart, callEnd] = candidate.callingHours.split('-')
  const config: Config = {
    ...candidate,
    hours,
    customerHours: candidate.callingHours === 'off' ? null : { start: callStart!, end: callEnd! },
    retryPolicy: {
      pattern: candidate.retryPattern,
      retrySeconds: candidate.retrySeconds,
      maxTries: candidate.maxTries,
      hours,
    },
  }
  return deepFreeze(config)
}

function readRawValues(env: Environment): Map<ConfigVariable, string> {
  const raw = new Map<ConfigVariable, string>()
  for (const variable of CONFIG_VARIABLES) {
    const value = env[variable.name]?.trim()
    if (value !== undefined && value !== '') {
      raw.set(variable, value)
    }
  }
  return raw
}

function buildCandidate(raw: Map<ConfigVariable, string>, defaults: ConfigDefaults): Candidate {
  const candidate: Candidate = { ami: {}, smtp: {}, amd: {} }
  for (const [variable, text] of raw) {
    setAt(candidate, variable.path, variable.read(text))
  }
  // The defaults that depend on something else; the fixed ones are in the schema.
  candidate.timezone ??= defaults.hostZone
  candidate.retryPattern ??= defaultRetryPattern(candidate.callbackMode === 'pinned' ? 'pinned' : 'pool')
  // With a bad RETRY_PATTERN there is no sum; 1 keeps MAX_TRIES from a second, misleading
  // error while RETRY_PATTERN's own error stops the start anyway.
  candidate.maxTries ??= Value.Check(EnvConfigSchema.properties.retryPattern, candidate.retryPattern)
    ? candidate.retryPattern.reduce((sum, tries) => sum + tries, 0)
    : 1
  return Value.Default(EnvConfigSchema, candidate) as Candidate
}

/** The object holding a variable's field: the candidate itself, or its group (`ami`, `smtp`, `amd`). */
function holderOf(target: Candidate, path: ConfigVariable['path']): { holder: Candidate; field: string } {
  const [key, nestedKey] = path
  return nestedKey === undefined
    ? { holder: target, field: key }
    : { holder: target[key] as Candidate, field: nestedKey }
}

function setAt(target: Candidate, path: ConfigVariable['path'], value: unknown): void {
  const { holder, field } = holderOf(target, path)
  holder[field] = value
}

function schemaProblems(candidate: Candidate, raw: Map<ConfigVariable, string>): string[] {
  const failedPaths = [...Value.Errors(EnvConfigSchema, candidate)].map((error) => error.path)
  return CONFIG_VARIABLES.filter((variable) => {
    const pointer = `/${variable.path.join('/')}`
    return failedPaths.some((path) => path === pointer || path.startsWith(`${pointer}/`))
  }).map((variable) => {
    const expected = String(envSchemaAt(variable.path).description)
    return `${variable.name} must be ${expected}, got ${shown(variable, raw.get(variable), candidate)}`
  })
}

// Cross-field rule the schema cannot state; only checked when both values are themselves valid.
function workWindowProblems(candidate: Candidate): string[] {
  const { workStart, workEnd } = candidate
  const clockTime = EnvConfigSchema.properties.workStart
  if (Value.Check(clockTime, workStart) && Value.Check(clockTime, workEnd) && workStart >= workEnd) {
    return [`WORK_END must be later than WORK_START, got WORK_START="${workStart}" WORK_END="${workEnd}"`]
  }
  return []
}

function callingHoursProblems(candidate: Candidate): string[] {
  const { callingHours } = candidate
  if (!Value.Check(EnvConfigSchema.properties.callingHours, callingHours) || callingHours === 'off') return []
  const [start, end] = (callingHours as string).split('-')
  return start! >= end! ? [`CALLING_HOURS must have its start before its end, got "${callingHours}"`] : []
}

function shown(variable: ConfigVariable, text: string | undefined, candidate: Candidate): string {
  if (text === undefined) {
    // Only a default passed in by the caller can fail (TIMEZONE from the host's zone).
    const { holder, field } = holderOf(candidate, variable.path)
    const value = holder[field]
    return `${JSON.stringify(value)} (the default, as ${variable.name} is unset)`
  }
  switch (variable.exposure) {
    case 'secret':
      return 'a value that is not shown'
    case 'url':
      return JSON.stringify(maskUrlCredentials(text))
    default:
      return JSON.stringify(text)
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const member of Object.values(value)) {
      deepFreeze(member)
    }
    Object.freeze(value)
  }
  return value
}
