import { AMD_PARAMETERS, type Config } from '@hold-dialer/rules'

/** AMD's settings as the predictive dialer uses them (AMD, AMD_RECORD_ONLY, AMD()'s parameters). */
export type AmdSettings = Config['amd']

/** Whether AMD() runs on predictive customers. */
export function amdOn(amd: AmdSettings | undefined): boolean {
  return amd?.mode === 'predictive'
}

/**
 * The Originate variables that turn AMD() on in the shipped HOLD_CONTEXT (deploy/asterisk): HD_AMD
 * (`hangup`, or `record` in record-only mode) and each of AMD()'s parameters that is set; one left
 * unset is empty in the dialplan, so amd.conf's value applies. None when AMD is off.
 */
export function amdVariables(amd: AmdSettings | undefined): Record<string, string> {
  if (!amd || !amdOn(amd)) return {}
  const out: Record<string, string> = { HD_AMD: amd.recordOnly ? 'record' : 'hangup' }
  for (const [, key, channelVariable] of AMD_PARAMETERS) {
    const value = amd[key]
    if (value !== undefined) out[channelVariable] = String(value)
  }
  return out
}
