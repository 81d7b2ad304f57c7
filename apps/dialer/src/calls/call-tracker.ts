import { type AmiMessage, header } from '@hold-dialer/ami'
import type { Agent } from '../agents/agent-tracker.js'
import type { CallPhase } from './call-progress.js'
import { callResult } from './call-result.js'
import type { CallOutcome } from './outcomes.js'

export interface CallStart {
  /**
   * ChannelId given to Originate: the originated channel's Uniqueid (the agent's desk in progressive
   * mode, the customer in predictive mode) and the Linkedid of every channel of the call.
   */
  key: string
  mode?: 'progressive' | 'predictive'
  /** Predictive, pinned mode: the call belongs to `agent` alone. */
  pinned?: boolean
  actionId: string
  leadId: number
  oliId: string
  phone: string
  /** The number's international form (NULL: not worked out): a superseded call's attempt keeps it. */
  phoneE164: string | null
  agent: Agent | null
  startedAt: Date
  /** No result by then: settled from what is known (a lost Hangup must not hold a lead forever). */
  deadline: Date
  /** No OriginateResponse and no channel by then: the originate is taken as never placed. */
  originateDeadline: Date
}

/** Which party a channel carries. `undefined`: not known (yet). */
export type Side = 'agent' | 'customer'

export interface Leg {
  uniqueid: string
  name: string
  side: Side | undefined
  up: boolean
  hungUp: boolean
  hangupOrder?: number
  cause?: number
  causeTxt?: string
  /**
   * A Local half Asterisk is taking out of the path (LocalOptimizationBegin): its hangup is the
   * optimisation, not a party hanging up.
   */
  optimisedOut?: boolean
}

export interface TrackedCall extends CallStart {
  legs: Map<string, Leg>
  /** Uniqueid of the customer's channel as dialed (attempt record). */
  customerUniqueid?: string
  originateResponse?: { success: boolean; reason: number | undefined }
  /** DIALSTATUS of the dial that reached (or failed to reach) the customer. */
  dialStatus?: string
  answeredAt?: Date
  /** Predictive: when an agent's leg answered the customer's call. */
  bridgedAt?: Date
  /** Predictive: when a failed OriginateResponse arrived. */
  failedAt?: Date
  /** Predictive: sent to an agent's extension (Redirect accepted). */
  redirected?: boolean
  /** Predictive: hung up by the dialer after HOLD_TIMEOUT_SECONDS on hold. */
  holdExpired?: boolean
  /** Predictive with AMD: AMD()'s verdict (the dialplan's HoldDialerAmd UserEvent), when it came. */
  amd?: AmdVerdict
  /** Predictive with AMD: hung up by the dialplan as an answering machine (not record-only). */
  machine?: boolean
  /** Predictive with AMD: no verdict in time, so taken as a person (predictive.ts). */
  amdOverdue?: boolean
  hangups: number
  /**
   * The channels of the call's hangup requests (HangupRequest / SoftHangupRequest), in order: the first
   * is the party that ended it. Requests are published where they happen, before the hangups they
   * cause, so their order follows cause and effect; Hangup events are published as each channel is
   * destroyed and can arrive in any order.
   */
  hangupRequests: Leg[]
  adopted: boolean
  /** The last step logged (call-progress.ts) and when. */
  phase?: CallPhase
  phaseAt?: Date
}

export interface CallResult {
  outcome: CallOutcome
  why: string
  answeredAt: Date | null
  endedAt: Date
  dialStatus: string | null
  originateReason: number | null
  hangupCause: number | null
  hangupCauseTxt: string | null
  hangupBy: 'customer' | 'agent' | 'system' | null
  customerUniqueid: string | null
}

/** AMD()'s verdict on an answered customer (apps/app_amd.c's AMDSTATUS and AMDCAUSE). */
export interface AmdVerdict {
  status: string
  cause: string
  /** Milliseconds from the answer to the verdict. */
  ms: number
}

/** The UserEvent the shipped HOLD_CONTEXT sends after AMD() (deploy/asterisk). */
export const AMD_USER_EVENT = 'HoldDialerAmd'

/** A channel listed by CoreShowChannels (adoption after a restart). */
export interface LiveChannel {
  uniqueid: string
  name: string
  up: boolean
  /** The bridge it is in (CoreShowChannel `BridgeId`), when it is in one. */
  bridgeId?: string
}

/** The DIALSTATUS a failed Originate's Reason stands for (main/pbx.c), when no DialEnd said it. */
const REASON_DIAL_STATUS: Readonly<Record<number, string>> = { 3: 'NOANSWER', 5: 'BUSY', 8: 'CONGESTION' }

/** How long a failed predictive originate waits for a channel event before it is settled without one. */
const FAILED_GRACE_MS = 500

const num = (v: string | undefined) =>
  v === undefined || v === '' || Number.isNaN(Number(v)) ? undefined : Number(v)

/**
 * `Local/1001@agents-00000000;2` -> `Local/1001@agents-00000000`: the two halves of a Local channel
 * carry one party between them (Asterisk's core_local.c names them `;1` and `;2`).
 */
export function channelBase(name: string): string {
  return name.replace(/;[12]$/, '')
}

/**
 * Follows each placed call through its AMI events and says when it is over and how it ended. The model
 * follows what Asterisk 22 sends (captures in packages/asterisk-testbed and ../shared/asterisk/samples):
 *
 * - Calls are keyed by the ChannelId this dialer gave the Originate: Asterisk uses it as the originated
 *   channel's Uniqueid and every channel created from it carries it as Linkedid. The OriginateResponse
 *   is matched by ActionID.
 * - Each channel belongs to a side. The originated channel (and its Local `;2` half) is the agent's
 *   desk in progressive mode and the customer in predictive mode. A channel dialed *from* one side
 *   (a DialBegin whose caller is on that side) is the other side, with its Local half.
 * - The Originate's own dial shows as a DialBegin/DialEnd pair with no caller whose destination is the
 *   originated channel. In progressive mode that is the agent's desk ringing, not the customer: its
 *   result arrives as the OriginateResponse (Reason 3 no answer, 5 busy, 8 congestion, 0/1 failure),
 *   which restores the lead without counting an attempt. In predictive mode it is the customer's dial.
 * - A hangup cause is read from the customer's side; of a Local pair the far half (`;2`) carries the
 *   real cause while the near half often says 0.
 *
 * Events may arrive in any order (AMI-NOTES); a call is over when its OriginateResponse has arrived and
 * every channel seen has hung up, or when the originate failed.
 */
export class CallTracker {
  readonly #calls = new Map<string, TrackedCall>()
  readonly #byAction = new Map<string, string>()

  constructor(
    private readonly now: () => Date,
    private readonly onFinished: (call: TrackedCall, result: CallResult) => void,
    private readonly hooks: {
      /** Predictive: the customer answered (now waiting for an agent). */
      onAnswered?: (call: TrackedCall) => void
      /** Predictive: an agent's leg failed to join (busy, no answer): the customer is back on hold. */
      onAgentLegFailed?: (call: TrackedCall, dialStatus: string) => void
      /** Predictive with AMD: the dialplan's verdict on the answered customer arrived. */
      onAmd?: (call: TrackedCall) => void
      /** A step of the call for the log: customer ringing, answered, connected to the agent. */
      onProgress?: (call: TrackedCall, phase: CallPhase) => void
    } = {},
  ) {}

  add(start: CallStart, adopted = false): TrackedCall {
    const call: TrackedCall = { ...start, legs: new Map(), hangups: 0, hangupRequests: [], adopted }
    if (start.mode === 'predictive') call.customerUniqueid = start.key
    this.#calls.set(start.key, call)
    this.#byAction.set(start.actionId, start.key)
    return call
  }

  /**
   * Follows a call of a previous run from CoreShowChannels. The originated channel and its Local half
   * are on the originated side, and so is a channel bridged to that half (a desk context dialing the
   * desk's phone, `Local/1001@from-internal;2` -> `PJSIP/1001`, with its own Local half): the other
   * party is dialed from the originated channel itself. Every other channel is the other side.
   * Predictive: a customer talking to an agent is connected; one answered with no agent is queued
   * for one again.
   */
  /** `answeredAt`: when the customer answered, as the claim's attempt row recorded it (if it did). */
  adopt(start: CallStart, channels: LiveChannel[], answeredAt?: Date): TrackedCall {
    const call = this.add(start, true)
    const own = this.#originatedSide(call)
    const ownIds = originatedParty(start.key, channels)
    for (const c of channels) {
      const side = ownIds.has(c.uniqueid) ? own : other(own)
      call.legs.set(c.uniqueid, { uniqueid: c.uniqueid, name: c.name, side, up: c.up, hungUp: false })
      if (side === 'customer') {
        call.customerUniqueid ??= c.uniqueid
        if (c.up) call.answeredAt ??= answeredAt ?? this.now()
      }
    }
    if (call.mode === 'predictive' && call.answeredAt) {
      const agentLegs = [...call.legs.values()].filter((l) => l.side === 'agent')
      if (agentLegs.some((l) => l.up)) call.bridgedAt = call.answeredAt
      if (agentLegs.length > 0) call.redirected = true
      else this.hooks.onAnswered?.(call)
    }
    return call
  }

  active(): TrackedCall[] {
    return [...this.#calls.values()]
  }

  get size(): number {
    return this.#calls.size
  }

  has(key: string): boolean {
    return this.#calls.has(key)
  }

  /** Agents held by calls this tracker follows. */
  busyAgentIds(): Set<number> {
    const out = new Set<number>()
    for (const c of this.#calls.values()) if (c.agent) out.add(c.agent.id)
    return out
  }

  handle(event: AmiMessage): void {
    const name = header(event, 'event')?.toLowerCase()
    if (name === 'originateresponse') {
      this.#originateResponse(event)
      return
    }
    if (name === 'localoptimizationbegin') {
      this.#optimisation(event)
      return
    }
    const linked = header(event, 'linkedid') ?? header(event, 'destlinkedid')
    const call = linked ? this.#calls.get(linked) : undefined
    if (!call) return
    const uniqueid = header(event, 'uniqueid')
    switch (name) {
      case 'newchannel':
      case 'newstate':
        if (uniqueid) {
          this.#leg(call, uniqueid, header(event, 'channel'))
          if (header(event, 'channelstatedesc') === 'Up') this.#up(call, uniqueid)
        }
        break
      case 'dialbegin':
        this.#dialBegin(call, event)
        break
      case 'dialend':
        this.#dialEnd(call, event)
        break
      case 'bridgeenter':
        if (uniqueid) {
          this.#leg(call, uniqueid, header(event, 'channel'))
          this.#up(call, uniqueid)
        }
        break
      case 'hangup':
        if (uniqueid) this.#hangup(call, uniqueid, event)
        break
      case 'userevent':
        if (header(event, 'userevent') === AMD_USER_EVENT) this.#amd(call, event)
        break
      case 'hanguprequest':
      case 'softhanguprequest': {
        const leg = uniqueid ? call.legs.get(uniqueid) : undefined
        if (leg && !leg.hungUp && !call.hangupRequests.includes(leg)) call.hangupRequests.push(leg)
        break
      }
    }
  }

  /** The Originate action itself was refused (or never sent, `why`): nothing was placed. */
  originateRefused(key: string, why = 'Originate refused by the PBX'): void {
    const call = this.#calls.get(key)
    if (call) this.#finish(call, { outcome: 'Failed', why })
  }

  /** Settles calls past their deadlines from what is known; returns them (the caller hangs up their legs). */
  expire(): TrackedCall[] {
    const now = this.now().getTime()
    const out: TrackedCall[] = []
    for (const call of this.#calls.values()) {
      if (call.failedAt && call.legs.size === 0 && now - call.failedAt.getTime() >= FAILED_GRACE_MS) {
        out.push(call)
        this.#finish(call)
        continue
      }
      const noSign = !call.originateResponse && call.legs.size === 0
      if (noSign && now >= call.originateDeadline.getTime()) {
        out.push(call)
        this.#finish(call, { outcome: 'Failed', why: 'no OriginateResponse and no channel: never placed' })
      } else if (now >= call.deadline.getTime()) {
        out.push(call)
        this.#finish(call, undefined, 'call timeout: final events missing')
      }
    }
    return out
  }

  /**
   * After an AMI reconnect: calls none of whose channels is still alive ended while events were lost;
   * settle them from what is known.
   */
  reconcile(liveLinkedIds: ReadonlySet<string>): void {
    for (const call of [...this.#calls.values()]) {
      if (!liveLinkedIds.has(call.key) && (call.legs.size > 0 || call.originateResponse)) {
        this.#finish(call, undefined, 'ended while AMI was disconnected')
      }
    }
  }

  /** The customer's channel a Redirect must move (predictive): the originated one, while it is up. */
  customerChannel(call: TrackedCall): Leg | undefined {
    const leg = call.legs.get(call.key)
    return leg && !leg.hungUp ? leg : undefined
  }

  #originateResponse(event: AmiMessage): void {
    const key = this.#byAction.get(header(event, 'actionid') ?? '')
    const call = key ? this.#calls.get(key) : undefined
    if (!call) return
    call.originateResponse = {
      success: header(event, 'response')?.toLowerCase() === 'success',
      reason: num(header(event, 'reason')),
    }
    if (call.originateResponse.success) {
      // Predictive: success means the customer answered, whether or not Newstate Up came first; the
      // event names the customer's channel, which the Redirect to an agent needs.
      if (call.mode === 'predictive') {
        this.#leg(call, call.key, header(event, 'channel'))
        this.#up(call, call.key)
      }
      this.#maybeFinished(call)
    } else if (call.mode === 'predictive') {
      // The customer's Hangup (with the cause that tells a reject from congestion) may still be on
      // its way (AMI-NOTES: no order is guaranteed): finish when it lands, or shortly after.
      call.failedAt = this.now()
      // A ring timeout ends the Originate with no DialEnd at all: the Reason says what happened.
      call.dialStatus ??= REASON_DIAL_STATUS[call.originateResponse.reason ?? -1]
      this.#maybeFinished(call)
    } else {
      // Progressive: the agent's desk did not answer, was busy or could not be reached. The customer
      // was never dialed (the customer is dialed only from the answered desk's channel).
      this.#finish(call)
    }
  }

  #originatedSide(call: TrackedCall): Side {
    return call.mode === 'predictive' ? 'customer' : 'agent'
  }

  #leg(call: TrackedCall, uniqueid: string, name: string | undefined): Leg {
    let leg = call.legs.get(uniqueid)
    if (!leg) {
      leg = { uniqueid, name: name ?? uniqueid, side: undefined, up: false, hungUp: false }
      call.legs.set(uniqueid, leg)
    } else if (name && leg.name === uniqueid) {
      leg.name = name
    }
    if (leg.side === undefined) leg.side = this.#sideOf(call, leg)
    return leg
  }

  /** The originated channel, or the Local half of a channel whose side is known. */
  #sideOf(call: TrackedCall, leg: Leg): Side | undefined {
    if (leg.uniqueid === call.key) return this.#originatedSide(call)
    const base = channelBase(leg.name)
    for (const other of call.legs.values()) {
      if (other !== leg && other.side !== undefined && channelBase(other.name) === base) return other.side
    }
    return undefined
  }

  /** Marks a channel and its Local half as one side. */
  #assign(call: TrackedCall, leg: Leg, side: Side): void {
    const base = channelBase(leg.name)
    for (const l of call.legs.values()) if (channelBase(l.name) === base) l.side ??= side
    leg.side ??= side
    if (side === 'customer' && leg.up) this.#up(call, leg.uniqueid)
  }

  #dialBegin(call: TrackedCall, event: AmiMessage): void {
    const callerId = header(event, 'uniqueid')
    const destId = header(event, 'destuniqueid')
    if (!destId) return
    const dest = this.#leg(call, destId, header(event, 'destchannel'))
    // No caller: the Originate's own dial of the originated channel (predictive: the customer).
    if (!callerId) {
      if (call.mode === 'predictive' && destId === call.key) this.hooks.onProgress?.(call, 'customer ringing')
      return
    }
    const caller = this.#leg(call, callerId, header(event, 'channel'))
    if (caller.side === undefined) return
    // Only the originated channel dials the other party (dialer-outbound, dialer-agents). A Dial from
    // any other channel stays on its caller's side: a FreePBX-style desk context dialing the phone
    // (Local/1001@from-internal;2 -> PJSIP/1001), a customer route dialing on to the trunk.
    this.#assign(call, dest, callerId === call.key ? other(caller.side) : caller.side)
    if (dest.side === 'customer' && call.customerUniqueid === undefined) {
      call.customerUniqueid = dest.uniqueid
      this.hooks.onProgress?.(call, 'customer ringing')
    }
  }

  #dialEnd(call: TrackedCall, event: AmiMessage): void {
    const status = header(event, 'dialstatus')
    const callerId = header(event, 'uniqueid')
    const destId = header(event, 'destuniqueid')
    const dest = destId ? this.#leg(call, destId, header(event, 'destchannel')) : undefined
    if (!status || !dest) return
    if (!callerId) {
      // The Originate's own dial: in predictive mode the customer's dial status (busy, no answer...);
      // in progressive mode the agent's desk, whose result the OriginateResponse carries.
      if (call.mode === 'predictive' && dest.side === 'customer') call.dialStatus = status
      return
    }
    const caller = this.#leg(call, callerId, header(event, 'channel'))
    if (caller.side === 'agent' && dest.side === 'customer') {
      call.dialStatus = status
      if (status === 'ANSWER') {
        this.#up(call, dest.uniqueid)
        // Progressive: the desk dialed the customer, so the answer bridges them.
        if (call.mode !== 'predictive') this.hooks.onProgress?.(call, 'connected to agent')
      }
    } else if (caller.side === 'customer' && dest.side === 'agent') {
      // Predictive: the customer's channel dialing an agent's desk.
      if (status === 'ANSWER') {
        if (!call.bridgedAt) {
          call.bridgedAt = this.now()
          this.hooks.onProgress?.(call, 'connected to agent')
        }
      } else this.hooks.onAgentLegFailed?.(call, status)
    }
  }

  /**
   * A Local pair bridged on both halves is optimised out (core_local.c): both halves hang up while
   * the parties talk on, directly bridged. Those hangups say nothing of who ended the call. (The
   * LocalOptimizationEnd that follows is not read: Asterisk 22 says `Success: No` for an
   * optimisation that took place, captured in the test bed.)
   */
  #optimisation(event: AmiMessage): void {
    const linked = header(event, 'localonelinkedid') ?? header(event, 'localtwolinkedid')
    const call = linked ? this.#calls.get(linked) : undefined
    if (!call) return
    for (const id of [header(event, 'localoneuniqueid'), header(event, 'localtwouniqueid')]) {
      const leg = id ? call.legs.get(id) : undefined
      if (leg) leg.optimisedOut = true
    }
  }

  #hangup(call: TrackedCall, uniqueid: string, event: AmiMessage): void {
    const leg = this.#leg(call, uniqueid, header(event, 'channel'))
    if (!leg.hungUp) {
      leg.hungUp = true
      call.hangups += 1
      leg.hangupOrder = call.hangups
      leg.cause = num(header(event, 'cause'))
      leg.causeTxt = header(event, 'cause-txt')
    }
    this.#maybeFinished(call)
  }

  /**
   * The verdict is read once, from a customer channel (AMD() runs on it: predictive, the originated
   * channel in HOLD_CONTEXT; progressive, the dialed customer in the Dial's U() subroutine).
   */
  #amd(call: TrackedCall, event: AmiMessage): void {
    const uniqueid = header(event, 'uniqueid')
    if (call.amd || !uniqueid || call.legs.get(uniqueid)?.side !== 'customer') return
    const at = this.now().getTime()
    call.amd = {
      status: header(event, 'status') ?? '',
      cause: header(event, 'cause') ?? '',
      ms: call.answeredAt ? Math.max(0, at - call.answeredAt.getTime()) : 0,
    }
    this.hooks.onAmd?.(call)
  }

  #up(call: TrackedCall, uniqueid: string): void {
    const leg = call.legs.get(uniqueid)
    if (!leg) return
    leg.up = true
    if (leg.side === 'customer' && !call.answeredAt) {
      call.answeredAt = this.now()
      this.hooks.onProgress?.(call, 'customer answered')
      if (call.mode === 'predictive') this.hooks.onAnswered?.(call)
    }
  }

  #maybeFinished(call: TrackedCall): void {
    if (!call.originateResponse && !call.adopted) return
    if (call.legs.size === 0) return
    for (const leg of call.legs.values()) if (!leg.hungUp) return
    this.#finish(call)
  }

  #finish(call: TrackedCall, forced?: { outcome: CallOutcome; why: string }, note?: string): void {
    if (!this.#calls.delete(call.key)) return
    this.#byAction.delete(call.actionId)
    this.onFinished(call, callResult(call, this.now(), forced, note))
  }
}

/** The originated channel, its Local half, and what is bridged to that half, with their Local halves. */
function originatedParty(key: string, channels: LiveChannel[]): Set<string> {
  const originated = channels.find((c) => c.uniqueid === key)
  if (!originated) return new Set([key])
  const base = channelBase(originated.name)
  const halves = channels.filter((c) => channelBase(c.name) === base)
  const bridges = new Set(
    halves.filter((c) => c.uniqueid !== key && c.bridgeId).map((c) => c.bridgeId as string),
  )
  const bridged = channels.filter((c) => c.bridgeId && bridges.has(c.bridgeId) && !halves.includes(c))
  const bases = new Set([base, ...bridged.map((c) => channelBase(c.name))])
  return new Set(channels.filter((c) => bases.has(channelBase(c.name))).map((c) => c.uniqueid))
}

function other(side: Side): Side {
  return side === 'agent' ? 'customer' : 'agent'
}
