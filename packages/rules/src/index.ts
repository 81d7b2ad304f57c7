// Pure rules shared by the API and the dialer: no clock reads, no environment, no I/O.
// "Now" and the configuration are always parameters.

export { type AmdStatus, type AmdWindowTotals, amdGoesToAgent, governedWindow } from './amd.js'
export {
  CALLBACK_TIME_CALENDAR_MESSAGE,
  CALLBACK_TIME_FORMAT_MESSAGE,
  CALLBACK_TIME_RANGE_MESSAGE,
  type CallbackTimeResult,
  formatLocal,
  parseCallbackTime,
} from './callback-time.js'
export { CALLER_ID_NAME_MAX, callerId, callerIdName } from './caller-id.js'
export { type CallingWindow, isCallable, nextCallableMoment, zonesOfColumn } from './calling-hours.js'
export {
  AMD_PARAMETERS,
  CONFIG_VARIABLES,
  type Config,
  type ConfigDefaults,
  ConfigError,
  ConfigSchema,
  type ConfigVariable,
  describeConfig,
  EnvConfigSchema,
  LOG_FORMATS,
  LOG_LEVELS,
  type LogFormat,
  parseConfig,
} from './config.js'
export {
  customerZoneColumn,
  customerZones,
  type LeadPhone,
  leadPhone,
  phoneCountry,
} from './customer-zone.js'
export { DAEMON_USAGE, daemonCommandLine } from './daemon-usage.js'
export { fromDbTime, toDbTime } from './db-time.js'
export {
  type DeskStateSource,
  deskKey,
  deskStateSource,
  hintStatusToDeviceState,
} from './desk-state-source.js'
export {
  DIAL_STATUSES,
  type DialStateReset,
  type DialStatus,
  resetForCallback,
  resetForClose,
  resetForPush,
} from './dial-state-reset.js'
export { chooseLogFormat } from './log-format.js'
export { maskSecret, maskUrlCredentials } from './mask-secrets.js'
export {
  abandonRate,
  dialLevel,
  type Forecast,
  forecastLines,
  guardAnswerRate,
  MARGIN_AGENTS,
  MARGIN_SPREAD,
  MIN_RECENT_ANSWERED,
  type PacingDecision,
  type PacingInput,
  pacing,
  THROTTLE_FROM,
  THROTTLE_FULL,
} from './pacing.js'
export { normalisePhone, PHONE_MESSAGE, type PhoneResult } from './phone.js'
export {
  DIAL_FORMATS,
  type DialFormat,
  dialNumber,
  internationalForm,
  internationalFormOfDigits,
  isPhoneCountry,
  UNREADABLE,
} from './phone-identity.js'
export { fastifyTrustProxy, type TrustProxy } from './proxy-address.js'
export {
  type CallbackMode,
  defaultRetryPattern,
  type NextAttempt,
  nextAttempt,
  quotaOfDay,
  type RetryPolicy,
  retryDayIndex,
  retryDelayForAbandon,
} from './retry-schedule.js'
export {
  type HeaderCopies,
  type HeaderSource,
  headerCopiesOf,
  SECRET_HEADERS,
  secretCheck,
} from './secret-check.js'
export {
  type BreakerChange,
  type LegVerdict,
  TrunkBreaker,
  type TrunkBreakerSettings,
  type TrunkBreakerState,
} from './trunk-breaker.js'
export {
  assertWorkingHours,
  type ClockTime,
  hasWorkingTime,
  isInWindow,
  isWithinWorkingHours,
  nextRetryAtForPush,
  nextWorkStart,
  parseClockTime,
  type WorkingHours,
  type WorkWindow,
  workEndOfDay,
  workingTimeBack,
  workStartOfDay,
  workWindowOfDay,
} from './working-hours.js'
export {
  addDays,
  daysBetween,
  inZone,
  type LocalDate,
  localDateOf,
} from './zoned-time.js'
