import { agentExtensions, numbersCalledAtOnce, startSim } from '@hold-dialer/bench/fleet'
import { agentOverlapPairs } from '@hold-dialer/bench/scale-checks'
import type { AmiEventRecord, CallRecord, ChannelInfo, CustomerScript, PbxSim } from '@hold-dialer/pbx-sim'

/** A call the PBX placed to a customer: a customer's channel was created under the dialer's call key. */
export interface PlacedCall {
  /** The call's key, `hd-<lead id>-<claim token>`: its Linkedid. */
  linkedid: string
  number: string
  /** Which pbx-sim (1 for the first, one more at each restart). */
  generation: number
  /** The dialer whose Originate placed it (from the ActionID), null when unknown. */
  dialerId: string | null
  /** Real milliseconds (Date.now()). */
  startedAt: number
  endedAt: number | null
  /** Still up when its pbx-sim was closed. */
  cut: boolean
}

/** `hd-<lead id>-<claim token>`: the key a dialer names its call by (apps/dialer/src/calls/call-key.ts). */
export const CALL_KEY = /^hd-(\d+)-([0-9a-f]+)$/

/** The dialer an Originate came from: its ActionIDs are `<DIALER_ID>-<pid>-<time>-<n>` (packages/ami). */
export function dialerOfActionId(actionId: string | null): string | null {
  return actionId === null ? null : (/^(.+)-\d+-[0-9a-z]+-\d+$/.exec(actionId)?.[1] ?? null)
}

/**
 * The PBX under test: one pbx-sim at a time on a fixed port, started again after each restart with the
 * same agents and customers. Watches every one for a customer or an agent on two calls at once: at
 * each new channel (so no overlap is missed between two checks), at each `check()`, and at the end
 * over each one's whole call log.
 */
export class ChaosPbx {
  readonly #generations: { sim: PbxSim; closedAt: number | null }[] = []
  /** Customer calls placed, by call key. */
  readonly placed = new Map<string, PlacedCall>()
  /** Customer channels of live calls, `<generation>:<channel>` to call key, to see them end. */
  readonly #customerChannels = new Map<string, string>()
  /** Each call's key, by `<generation>:<pbx-sim call id>`, to name the calls of an overlap. */
  readonly #callKeys = new Map<string, string>()
  /** Customer numbers with two calls at once: a description per overlap found. */
  readonly numberOverlaps = new Map<string, string>()
  /** Agents' desks with two calls at once. */
  readonly agentOverlaps = new Map<string, string>()
  originates = 0
  #port = 0

  constructor(
    private readonly o: {
      agents: number
      timeScale: number
      seed: number
      outcomes: Record<string, CustomerScript>
      /** An Originate from this dialer, now. */
      onOriginate: (dialerId: string) => void
    },
  ) {}

  get sim(): PbxSim {
    const current = this.#generations.at(-1)
    if (!current) throw new Error('pbx-sim not started')
    return current.sim
  }

  get port(): number {
    return this.#port
  }

  get generation(): number {
    return this.#generations.length
  }

  get restarts(): number {
    return Math.max(0, this.#generations.length - 1)
  }

  async start(): Promise<void> {
    const generation = this.#generations.length + 1
    const sim = await startSim(agentExtensions(this.o.agents), this.o.timeScale, {
      port: this.#port,
      // Each restart draws its own ring and answer order, as a PBX that came back would.
      seed: this.o.seed + generation,
      outcomes: this.o.outcomes,
    })
    this.#port = sim.port
    this.#generations.push({ sim, closedAt: null })
    sim.on('callStarted', (record: CallRecord) => {
      this.originates += 1
      const dialer = dialerOfActionId(record.actionId)
      if (dialer) this.o.onOriginate(dialer)
    })
    sim.on('callEnded', (record: CallRecord) => {
      for (const name of record.channels) {
        const key = this.#customerChannels.get(`${generation}:${name}`)
        const call = key === undefined ? undefined : this.placed.get(key)
        if (call && call.endedAt === null) call.endedAt = Date.now()
        this.#customerChannels.delete(`${generation}:${name}`)
      }
    })
    sim.on('amiEvent', (e: AmiEventRecord) => {
      if (e.event === 'Newchannel') this.#newChannel(sim, generation, e.fields[0]?.[1] ?? '')
    })
  }

  /** The PBX goes away (every call on it with it) and comes back on the same port after `awayMs`. */
  async restart(awayMs: number): Promise<void> {
    await this.close()
    if (awayMs > 0) await new Promise((r) => setTimeout(r, awayMs))
    await this.start()
  }

  async close(): Promise<void> {
    const current = this.#generations.at(-1)
    if (!current || current.closedAt !== null) return
    this.#checkLog(this.#generations.length)
    const at = Date.now()
    current.closedAt = at
    await current.sim.close()
    for (const call of this.placed.values()) {
      if (call.generation === this.#generations.length && call.endedAt === null) {
        call.endedAt = at
        call.cut = true
      }
    }
  }

  /** Two calls at once to one number, or on one agent's desk, in the live channels now. */
  check(): void {
    const current = this.#generations.at(-1)
    if (current && current.closedAt === null)
      this.#checkChannels(this.#generations.length, current.sim.channels())
  }

  /** The call keys of the live channels now, with the PBX generation they are read from. */
  liveCallKeys(): { generation: number; keys: Set<string> } {
    const current = this.#generations.at(-1)
    const keys = new Set<string>()
    if (current && current.closedAt === null) {
      for (const c of current.sim.channels()) if (CALL_KEY.test(c.linkedid)) keys.add(c.linkedid)
    }
    return { generation: this.#generations.length, keys }
  }

  /** The end's check over every pbx-sim's whole call log (the live one too). */
  checkLogs(): void {
    for (let g = 1; g <= this.#generations.length; g++) this.#checkLog(g)
  }

  #newChannel(sim: PbxSim, generation: number, name: string): void {
    const channels = sim.channels()
    const ch = channels.find((c) => c.name === name)
    if (ch) this.#callKeys.set(`${generation}:${ch.callId}`, ch.linkedid)
    if (ch?.role === 'customer' && ch.number !== null && CALL_KEY.test(ch.linkedid)) {
      this.#customerChannels.set(`${generation}:${name}`, ch.linkedid)
      if (!this.placed.has(ch.linkedid)) {
        this.placed.set(ch.linkedid, {
          linkedid: ch.linkedid,
          number: ch.number,
          generation,
          dialerId: dialerOfActionId(sim.calls[ch.callId - 1]?.actionId ?? null),
          startedAt: Date.now(),
          endedAt: null,
          cut: false,
        })
      }
    }
    this.#checkChannels(generation, channels)
  }

  #checkChannels(generation: number, channels: ChannelInfo[]): void {
    const byNumber = new Map<string, Map<number, string>>()
    const byAgent = new Map<string, Map<number, string>>()
    const add = (map: Map<string, Map<number, string>>, key: string, c: ChannelInfo) => {
      const calls = map.get(key) ?? new Map<number, string>()
      calls.set(c.callId, c.linkedid)
      map.set(key, calls)
    }
    for (const c of channels) {
      if (c.role === 'customer' && c.number !== null) add(byNumber, c.number, c)
      if (c.role === 'agent' && c.agentExtension !== null) add(byAgent, c.agentExtension, c)
    }
    const note = (found: Map<string, string>, what: string, key: string, calls: Map<number, string>) => {
      if (calls.size < 2) return
      const id = `${generation}:${key}:${[...calls.keys()].sort((a, b) => a - b).join(',')}`
      // Each call with the dialer whose Originate placed it.
      const named = [...calls.entries()].map(([callId, linkedid]) => {
        const by = dialerOfActionId(
          this.#generations[generation - 1]?.sim.calls[callId - 1]?.actionId ?? null,
        )
        return `${linkedid} (${by ?? 'unknown'})`
      })
      if (!found.has(id))
        found.set(id, `${what} ${key}: calls ${named.join(', ')} live at once (pbx ${generation})`)
    }
    for (const [number, calls] of byNumber) note(this.numberOverlaps, 'number', number, calls)
    for (const [extension, calls] of byAgent) note(this.agentOverlaps, 'agent', extension, calls)
  }

  #checkLog(generation: number): void {
    const sim = this.#generations[generation - 1]?.sim
    if (!sim) return
    const key = (id: number) => this.#callKeys.get(`${generation}:${id}`) ?? `call ${id}`
    for (const [number, most] of numbersCalledAtOnce(sim)) {
      const id = `${generation}:${number}:log`
      if (![...this.numberOverlaps.keys()].some((k) => k.startsWith(`${generation}:${number}:`)))
        this.numberOverlaps.set(
          id,
          `number ${number}: ${most} calls at once in the call log (pbx ${generation})`,
        )
    }
    for (const pair of agentOverlapPairs(sim)) {
      const id = `${generation}:${pair.extension}:${pair.calls.join(',')}`
      if (![...this.agentOverlaps.keys()].some((k) => k.startsWith(`${generation}:${pair.extension}:`)))
        this.agentOverlaps.set(
          id,
          `agent ${pair.extension}: ${key(pair.calls[1])} began on the desk before ${key(pair.calls[0])} ended (pbx ${generation})`,
        )
    }
  }
}
