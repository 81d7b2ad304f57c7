import { AMD_PARAMETERS, amdGoesToAgent, type Config } from '@hold-dialer/rules'
import type { DialerMetrics } from '../metrics.js'
import type { TrackedCall } from './call-tracker.js'

/** AMD's settings as the predictive dialer uses them (AMD, AMD_RECORD_ONLY, AMD()'s parameters). */
export type AmdSettings = Config['amd']

/** Whether AMD() runs on the customers of `dialMode`'s calls (AMD: off, predictive, progressive, both). */
export function amdOn(amd: AmdSettings | undefined, dialMode: 'progressive' | 'predictive'): boolean {
  return amd?.mode === dialMode || amd?.mode === 'both'
}

/**
 * The Originate variables that turn AMD() on in the shipped dialplan (deploy/asterisk: HOLD_CONTEXT,
 * and CUSTOMER_CONTEXT's Dial): HD_AMD (`hangup`, or `record` in record-only mode) and each of AMD()'s
 * parameters that is set; one left unset is empty in the dialplan, so amd.conf's value applies. None
 * when AMD is off for `dialMode`.
 */
export function amdVariables(
  amd: AmdSettings | undefined,
  dialMode: 'progressive' | 'predictive',
): Record<string, string> {
  if (!amd || !amdOn(amd, dialMode)) return {}
  const out: Record<string, string> = { HD_AMD: amd.recordOnly ? 'record' : 'hangup' }
  for (const [, key, channelVariable] of AMD_PARAMETERS) {
    const value = amd[key]
    if (value !== undefined) out[channelVariable] = String(value)
  }
  return out
}

/**
 * AMD()'s verdict arrived on a call: counted in the metrics, and a machine that is not to go to an
 * agent (everything but MACHINE goes, and in record-only mode a MACHINE too) is marked: the dialplan
 * hangs it up and its result is `Machine`. Returns whether the call goes on to an agent.
 */
export function noteAmdVerdict(
  call: TrackedCall,
  amd: AmdSettings,
  metrics: DialerMetrics | undefined,
): boolean {
  const verdict = call.amd
  if (!verdict) return true
  metrics?.amdVerdicts.inc({ status: verdict.status || 'none' })
  metrics?.amdSeconds.observe(verdict.ms / 1000)
  if (amdGoesToAgent(verdict.status, amd.recordOnly)) return true
  call.machine = true
  return false
}
