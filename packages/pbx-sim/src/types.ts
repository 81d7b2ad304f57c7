import type { Logger } from 'pino'

/**
 * What AMD() says of an answered line when the dialplan runs it (the Originate set HD_AMD), and
 * after how many simulated seconds. Without one, a line is a person: HUMAN after 2 s.
 */
export interface AmdScript {
  status: 'HUMAN' | 'MACHINE' | 'NOTSURE'
  seconds?: number
}

/** Shares of answered lines that are machines (and NOTSURE), with detection times, for `random`. */
export interface AmdMix {
  machineProbability: number
  notSureProbability?: number
  /** Seconds to a verdict: a person's (default 2), a machine's (default 1.5), NOTSURE's (default 5). */
  humanSeconds?: number
  machineSeconds?: number
  notSureSeconds?: number
}

/** How a customer's phone behaves when the simulator rings it. All durations are simulated seconds. */
export type CustomerScript =
  | {
      kind: 'answer'
      ringSeconds: number
      talkSeconds: number
      endedBy?: 'customer' | 'agent'
      amd?: AmdScript
    }
  | { kind: 'busy' }
  | { kind: 'noanswer'; ringSeconds?: number }
  | { kind: 'congestion' }
  | { kind: 'reject'; ringSeconds?: number }
  | { kind: 'fail' }
  | {
      kind: 'hangupWhileWaiting'
      ringSeconds: number
      patienceSeconds: number
      talkSeconds?: number
      amd?: AmdScript
    }
  | {
      kind: 'random'
      answerProbability: number
      busyProbability?: number
      ringSeconds: { mean: number }
      talkSeconds: { mean: number }
      /** Patience of an answered customer on hold: at least `min` (default 0), then exponential. */
      patienceSeconds?: { mean: number; min?: number }
      /** Answered lines that are answering machines (drawn only when given). */
      amd?: AmdMix
    }

/** What an operator sets on an agent's desk phone. The live device state also reflects calls in progress. */
export type AgentDeviceSetting = 'idle' | 'busy' | 'unavailable'

/** Asterisk device state names as they appear in DeviceStateChange. */
export type DeviceState = 'NOT_INUSE' | 'INUSE' | 'BUSY' | 'UNAVAILABLE' | 'RINGING' | 'RINGINUSE'

export type CallMode = 'progressive' | 'predictive' | 'agent'

export type CallOutcome =
  | 'pending'
  | 'answered'
  | 'busy'
  | 'noanswer'
  | 'congestion'
  | 'rejected'
  | 'failed'
  | 'abandoned'
  | 'machine'
  | 'cancelled'
  | 'agent-busy'
  | 'agent-unavailable'
  | 'agent-noanswer'

export type HangupParty = 'customer' | 'agent' | 'system'

/** One Originate action and everything that happened to it. Times are simulated epoch milliseconds. */
export interface CallRecord {
  id: number
  actionId: string | null
  mode: CallMode
  /** Customer number (digits), or null for an agent-only leg. */
  number: string | null
  /** The agent extension bridged to (or dialled first, in progressive mode). */
  agentExtension: string | null
  originateChannel: string
  context: string | null
  exten: string | null
  application: string | null
  data: string | null
  variables: Record<string, string>
  /** Names of every channel created for this call. */
  channels: string[]
  startedAt: number
  answeredAt: number | null
  bridgedAt: number | null
  endedAt: number | null
  outcome: CallOutcome
  hangupBy: HangupParty | null
  hangupCause: number | null
  dialStatus: string | null
}

/**
 * When OriginateResponse is written relative to the originated channel's last event of that step
 * (Newstate Up on answer, Hangup on failure). Real Asterisk publishes the two on different threads.
 */
export type OriginateResponseOrder = 'before' | 'after' | 'seeded'

export interface PbxSimOptions {
  host?: string
  port?: number
  users?: Record<string, string>
  amiVersion?: string
  timeScale?: number
  seed?: number
  defaultOutcome?: CustomerScript
  outcomes?: Record<string, CustomerScript>
  agentExtensions?: string[]
  /** A regular expression: matching extensions are agent desks too, e.g. '^[0-9]{3,5}$'. */
  agentPattern?: string
  agentStates?: Record<string, AgentDeviceSetting>
  customerContext?: string
  holdContext?: string
  logger?: Logger
  /** Simulated seconds an idle agent's phone rings before the agent picks up. Default 1. */
  agentAnswerSeconds?: number
  /** Simulated seconds a Redirect/Dial to an agent rings before giving up. Default 20. */
  agentDialTimeoutSeconds?: number
  /** Technology of agent desk phones, used for device names. Default 'PJSIP'. */
  agentTechnology?: string
  /** Technology and endpoint the customer dialplan dials through. Defaults 'PJSIP' and 'trunk'. */
  customerTechnology?: string
  trunk?: string
  /**
   * How the customer context dials a number, `%s` for the number, as the shipped dialplan's
   * HD_CUSTOMER_DIAL (e.g. `Local/%s@customers`): a Local route gives a `;1`/`;2` pair as Asterisk
   * does. Unset: `<customerTechnology>/%s@<trunk>`.
   */
  customerDial?: string
  /** How an agent's extension is dialed after a Redirect, as HD_DESK_DIAL (e.g. `Local/%s@agents`). */
  agentDial?: string
  originateResponseOrder?: OriginateResponseOrder
  /** Real milliseconds before a failed Login is answered (Asterisk sleeps 1 s). Default 1000. */
  authFailureDelayMs?: number
  /** Simulated epoch milliseconds at start. Default: the real clock. */
  clockStart?: number
}
