import type { Rng } from '../rng.js'
import type { AmdScript, CustomerScript } from '../types.js'

export type CustomerResult = 'answer' | 'busy' | 'noanswer' | 'congestion' | 'reject' | 'fail'

/** A script resolved to concrete numbers for one call. */
export interface CustomerPlan {
  result: CustomerResult
  /** Ringing time before answer (answer), before the decline (reject) or before giving up (noanswer). */
  ringSeconds: number
  /** Time talking once bridged to an agent (or inside an application) before the call ends. */
  talkSeconds: number
  /** Time after answer the customer waits unbridged before hanging up; null waits forever. */
  patienceSeconds: number | null
  endedBy: 'customer' | 'agent'
  /** AMD()'s verdict when the dialplan runs it. */
  amd: Required<AmdScript>
}

/** A person, as AMD() hears one with its stock settings: a short hello, then 0.8 s of silence. */
const PERSON: Required<AmdScript> = { status: 'HUMAN', seconds: 2 }
const DEFAULT_AMD_SECONDS: Record<AmdScript['status'], number> = { HUMAN: 2, MACHINE: 1.5, NOTSURE: 5 }

function amdOf(script: AmdScript | undefined): Required<AmdScript> {
  if (!script) return PERSON
  return { status: script.status, seconds: script.seconds ?? DEFAULT_AMD_SECONDS[script.status] }
}

const DEFAULT_TALK_SECONDS = 30

function plan(result: CustomerResult, fields: Partial<CustomerPlan> = {}): CustomerPlan {
  return {
    result,
    ringSeconds: 0,
    talkSeconds: DEFAULT_TALK_SECONDS,
    patienceSeconds: null,
    endedBy: 'customer',
    amd: PERSON,
    ...fields,
  }
}

/** Turns a script into a plan; only `random` consumes the RNG, so fixed scripts never shift the sequence. */
export function resolvePlan(script: CustomerScript, rng: Rng): CustomerPlan {
  switch (script.kind) {
    case 'answer':
      return plan('answer', {
        ringSeconds: script.ringSeconds,
        talkSeconds: script.talkSeconds,
        endedBy: script.endedBy ?? 'customer',
        amd: amdOf(script.amd),
      })
    case 'busy':
      return plan('busy')
    case 'congestion':
      return plan('congestion')
    case 'fail':
      return plan('fail')
    case 'noanswer':
      return plan('noanswer', { ringSeconds: script.ringSeconds ?? Number.POSITIVE_INFINITY })
    case 'reject':
      return plan('reject', { ringSeconds: script.ringSeconds ?? 0 })
    case 'hangupWhileWaiting':
      return plan('answer', {
        ringSeconds: script.ringSeconds,
        patienceSeconds: script.patienceSeconds,
        talkSeconds: script.talkSeconds ?? DEFAULT_TALK_SECONDS,
        amd: amdOf(script.amd),
      })
    case 'random': {
      const roll = rng.next()
      const ringSeconds = rng.exponential(script.ringSeconds.mean)
      const talkSeconds = rng.exponential(script.talkSeconds.mean)
      // Nobody hangs up before `min` seconds of silence; beyond that, an exponential tail.
      const patience = script.patienceSeconds
      const floor = Math.min(patience?.min ?? 0, patience?.mean ?? 0)
      const patienceSeconds = patience ? floor + rng.exponential(patience.mean - floor) : null
      if (roll < script.answerProbability) {
        // Drawn only when the script has a mix, so scripts without one keep their sequence.
        const mix = script.amd
        let amd = PERSON
        if (mix) {
          const kind = rng.next()
          if (kind < mix.machineProbability) amd = { status: 'MACHINE', seconds: mix.machineSeconds ?? 1.5 }
          else if (kind < mix.machineProbability + (mix.notSureProbability ?? 0))
            amd = { status: 'NOTSURE', seconds: mix.notSureSeconds ?? 5 }
          else amd = { status: 'HUMAN', seconds: mix.humanSeconds ?? 2 }
        }
        return plan('answer', { ringSeconds, talkSeconds, patienceSeconds, amd })
      }
      if (roll < script.answerProbability + (script.busyProbability ?? 0)) return plan('busy')
      return plan('noanswer', { ringSeconds: Number.POSITIVE_INFINITY })
    }
  }
}
