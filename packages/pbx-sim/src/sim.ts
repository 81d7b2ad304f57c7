import { EventEmitter } from 'node:events'
import { type Logger, pino } from 'pino'
import { ACTION_HANDLERS } from './ami/actions/index.js'
import type { AmiContext } from './ami/context.js'
import { AmiServer } from './ami/server.js'
import { Cause, type ChannelStateCode } from './causes.js'
import { SimClock } from './clock.js'
import { Faults } from './faults.js'
import { normalizeNumber } from './model/dialstring.js'
import { type CoreConfig, type EventCategory, PbxCore } from './pbx/engine.js'
import type {
  AgentDeviceSetting,
  CallRecord,
  CustomerScript,
  DeviceState,
  HangupParty,
  PbxSimOptions,
} from './types.js'
import type { Field } from './wire/message.js'

/** A read-only view of a live channel. */
export interface ChannelInfo {
  name: string
  uniqueid: string
  linkedid: string
  state: ChannelStateCode
  role: 'agent' | 'customer'
  number: string | null
  agentExtension: string | null
  context: string
  exten: string
  application: string
  bridgeId: string | null
  callId: number
}

/** An event as the simulator produced it (also when silenced, with `silenced: true`). */
export interface AmiEventRecord {
  event: string
  category: EventCategory
  fields: readonly Field[]
  silenced: boolean
}

export const DEFAULT_OUTCOME: CustomerScript = { kind: 'answer', ringSeconds: 3, talkSeconds: 20 }

/**
 * A running simulated PBX. Emits 'callStarted' and 'callEnded' (CallRecord) and 'amiEvent'
 * (AmiEventRecord).
 */
export class PbxSim extends EventEmitter {
  private server: AmiServer | null = null
  readonly faults = new Faults()
  private readonly counters = { originates: 0 }
  readonly core: PbxCore

  constructor(
    readonly host: string,
    private portNumber: number,
    readonly clock: SimClock,
    config: CoreConfig,
    private readonly options: Required<Pick<PbxSimOptions, 'users' | 'amiVersion' | 'authFailureDelayMs'>>,
    private readonly logger: Logger,
  ) {
    super()
    this.core = new PbxCore(
      config,
      clock,
      (event, category, fields) => this.publish(event, category, fields),
      logger,
      {
        onCallStart: (record) => this.emit('callStarted', record),
        onCallEnd: (record) => this.emit('callEnded', record),
      },
    )
  }

  get port(): number {
    return this.portNumber
  }

  /** Every Originate so far, oldest first; records update in place as calls progress. */
  get calls(): readonly CallRecord[] {
    return this.core.log.records
  }

  async listen(): Promise<void> {
    const ctx: AmiContext = {
      core: this.core,
      users: new Map(Object.entries(this.options.users)),
      amiVersion: this.options.amiVersion,
      faults: this.faults,
      logger: this.logger,
      authFailureDelayMs: this.options.authFailureDelayMs,
      bootedAt: this.clock.now(),
      counters: this.counters,
    }
    this.server = new AmiServer(ctx, ACTION_HANDLERS)
    this.portNumber = await this.server.listen(this.portNumber, this.host)
  }

  private publish(event: string, category: EventCategory, fields: Field[]): void {
    const silenced = this.faults.eventsSilenced
    this.emit('amiEvent', { event, category, fields, silenced } satisfies AmiEventRecord)
    if (silenced) {
      this.faults.droppedEvents += 1
      return
    }
    this.server?.broadcast(event, category, fields)
  }

  /** Stops the listener, cuts clients and cancels every pending simulated timer. */
  async close(): Promise<void> {
    this.clock.cancelAll()
    await this.server?.close()
    this.server = null
  }

  dropConnections(): void {
    this.server?.dropConnections()
  }

  connectionCount(): number {
    return this.server?.connectionCount() ?? 0
  }

  setOutcome(number: string, script: CustomerScript): void {
    this.core.setOutcome(normalizeNumber(number), script)
  }

  clearOutcome(number: string): void {
    this.core.clearOutcome(normalizeNumber(number))
  }

  setDefaultOutcome(script: CustomerScript): void {
    this.core.config.defaultOutcome = script
  }

  addAgent(extension: string, setting: AgentDeviceSetting = 'idle'): void {
    this.core.agents.add(extension, setting)
  }

  /** While down, no customer channel can be created (`PbxCore.trunkDown`); agents' desks still ring. */
  setTrunkDown(down = true): void {
    this.core.trunkDown = down
  }

  setAgentDevice(extension: string, setting: AgentDeviceSetting): void {
    this.core.agents.add(extension, setting)
  }

  agentDeviceState(extension: string): DeviceState {
    return this.core.agents.state(extension)
  }

  activeCallsTo(number: string): number {
    return this.core.log.activeCallsTo(normalizeNumber(number))
  }

  maxConcurrentCallsTo(number: string): number {
    return this.core.log.maxConcurrentCallsTo(normalizeNumber(number))
  }

  originateCount(): number {
    return this.counters.originates
  }

  /**
   * The party on this channel hangs up (Normal Clearing): a customer or agent putting the phone
   * down, recorded as hangupBy 'customer' or 'agent'. Returns false for an unknown channel.
   */
  hangupChannel(channelName: string, cause: number = Cause.NormalClearing): boolean {
    const ch = this.core.channels.get(channelName)
    if (!ch) return false
    const by: HangupParty = ch.role
    this.core.hangup(ch, cause, by)
    return true
  }

  channels(): ChannelInfo[] {
    return [...this.core.channels.values()].map((ch) => ({
      name: ch.name,
      uniqueid: ch.uniqueid,
      linkedid: ch.linkedid,
      state: ch.state,
      role: ch.role,
      number: ch.number,
      agentExtension: ch.agentExtension,
      context: ch.context,
      exten: ch.exten,
      application: ch.application,
      bridgeId: ch.bridge?.id ?? null,
      callId: ch.call.record.id,
    }))
  }

  /** Simulated epoch milliseconds. */
  now(): number {
    return this.clock.now()
  }

  setLoginDelayMs(ms: number): void {
    this.faults.loginDelayMs = Math.max(0, ms)
  }

  /** The next `count` Originate actions are answered `Response: Error` / `Originate failed`. */
  failNextOriginates(count: number): void {
    this.faults.failNextOriginates(count)
  }

  /** While on, events are dropped (never delivered later), as when AMI loses them. */
  silenceEvents(on = true): void {
    this.faults.eventsSilenced = on
  }

  droppedEventCount(): number {
    return this.faults.droppedEvents
  }

  /** Holds back action replies (events still flow) until resumeReplies(). */
  pauseReplies(): void {
    this.faults.repliesPaused = true
  }

  resumeReplies(): void {
    this.faults.repliesPaused = false
    this.server?.flushHeldReplies()
  }
}

/** Starts a simulated Asterisk Manager server. Close it with `close()`. */
export async function startPbxSim(options: PbxSimOptions = {}): Promise<PbxSim> {
  const logger = options.logger ?? pino({ level: 'silent' })
  const clock = new SimClock(options.timeScale ?? 1, options.clockStart ?? Date.now())
  const config: CoreConfig = {
    customerContext: options.customerContext ?? 'dialer-outbound',
    holdContext: options.holdContext ?? 'dialer-hold',
    agentAnswerSeconds: options.agentAnswerSeconds ?? 1,
    agentDialTimeoutSeconds: options.agentDialTimeoutSeconds ?? 20,
    agentTechnology: options.agentTechnology ?? 'PJSIP',
    customerTechnology: options.customerTechnology ?? 'PJSIP',
    trunk: options.trunk ?? 'trunk',
    customerDial: options.customerDial ?? null,
    agentDial: options.agentDial ?? null,
    originateResponseOrder: options.originateResponseOrder ?? 'seeded',
    seed: options.seed ?? 1,
    defaultOutcome: options.defaultOutcome ?? DEFAULT_OUTCOME,
    agentPattern: options.agentPattern ? new RegExp(options.agentPattern) : null,
  }
  const sim = new PbxSim(
    options.host ?? '127.0.0.1',
    options.port ?? 0,
    clock,
    config,
    {
      users: options.users ?? { admin: 'admin' },
      amiVersion: options.amiVersion ?? '9.0.0',
      authFailureDelayMs: options.authFailureDelayMs ?? 1000,
    },
    logger,
  )
  for (const extension of options.agentExtensions ?? []) {
    sim.addAgent(extension, options.agentStates?.[extension] ?? 'idle')
  }
  for (const [extension, setting] of Object.entries(options.agentStates ?? {})) {
    sim.setAgentDevice(extension, setting)
  }
  for (const [number, script] of Object.entries(options.outcomes ?? {})) sim.setOutcome(number, script)
  await sim.listen()
  logger.info({ host: sim.host, port: sim.port, timeScale: clock.timeScale }, 'pbx-sim listening')
  return sim
}
