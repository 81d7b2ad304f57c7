import type { CallRecord, PbxSim, PbxSimOptions } from '../../src/index.js'
import { startPbxSim } from '../../src/index.js'
import type { AmiMessage, Field } from '../../src/wire/message.js'
import { describe, loggedIn, type TestClient } from './client.js'

/** Fast, deterministic defaults: 1 simulated second = 1 real millisecond. */
export const FAST: PbxSimOptions = {
  timeScale: 1000,
  agentExtensions: ['1001', '1002'],
  originateResponseOrder: 'after',
}

export async function setup(options: PbxSimOptions = {}): Promise<{ sim: PbxSim; c: TestClient }> {
  const sim = await startPbxSim({ ...FAST, ...options })
  const c = await loggedIn(sim.port)
  await c.waitForEvent('FullyBooted')
  return { sim, c }
}

/** Base fields with `extra` applied: a key already present is replaced, a new one appended. */
export function withFields(base: Field[], extra: Field[]): Field[] {
  const out = [...base]
  for (const [key, value] of extra) {
    const index = out.findIndex(([k]) => k === key)
    if (index >= 0 && key !== 'Variable') out[index] = [key, value]
    else out.push([key, value])
  }
  return out
}

/**
 * Resolves with the CallRecord of the given ActionID once the call has ended and, when a client
 * is given, once that client has received every event written before the end (a Ping round trip).
 */
export async function callEnded(sim: PbxSim, actionId: string, c?: TestClient): Promise<CallRecord> {
  const record = await recordEnded(sim, actionId)
  if (c) await c.action([['Action', 'Ping']])
  return record
}

/** The 300 s limit is a safety net for a loaded machine, never a speed limit. */
function recordEnded(sim: PbxSim, actionId: string, timeoutMs = 300_000): Promise<CallRecord> {
  const done = sim.calls.find((r) => r.actionId === actionId && r.endedAt !== null)
  if (done) return Promise.resolve(done)
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sim.off('callEnded', listener)
      reject(new Error(`call ${actionId} did not end`))
    }, timeoutMs)
    const listener = (record: CallRecord): void => {
      if (record.actionId !== actionId) return
      clearTimeout(timer)
      sim.off('callEnded', listener)
      resolve(record)
    }
    sim.on('callEnded', listener)
  })
}

export function progressive(actionId: string, number: string, extra: Field[] = []): Field[] {
  return withFields(
    [
      ['Action', 'Originate'],
      ['ActionID', actionId],
      ['Channel', 'PJSIP/1001'],
      ['Context', 'dialer-outbound'],
      ['Exten', number],
      ['Priority', '1'],
      ['CallerID', '"Dialer" <5550000>'],
      ['Timeout', '30000'],
      ['Async', 'true'],
    ],
    extra,
  )
}

export function predictive(actionId: string, number: string, extra: Field[] = []): Field[] {
  return withFields(
    [
      ['Action', 'Originate'],
      ['ActionID', actionId],
      ['Channel', `PJSIP/${number}@trunk`],
      ['Context', 'dialer-hold'],
      ['Exten', 's'],
      ['Priority', '1'],
      ['Timeout', '30000'],
      ['Async', 'true'],
    ],
    extra,
  )
}

/** Every event received except the login's FullyBooted, described compactly. */
export function trace(c: TestClient): string[] {
  return c
    .events()
    .filter((m) => m.get('Event') !== 'FullyBooted' && !isOriginateDial(m))
    .map(describe)
}

/**
 * The DialBegin/DialEnd an Originate makes of its own channel (no caller block). The call-flow
 * traces above leave them out; originate-dial.test.ts asserts them.
 */
export function isOriginateDial(m: AmiMessage): boolean {
  const event = m.get('Event')
  return (event === 'DialBegin' || event === 'DialEnd') && m.get('Channel') === undefined
}

/** The Originate's own dial events, described (`DialEnd -> PJSIP/1001-00000000 BUSY`). */
export function originateDials(c: TestClient): string[] {
  return c
    .events()
    .filter(isOriginateDial)
    .map(
      (m) =>
        `${m.get('Event')} -> ${m.get('DestChannel')}${m.get('DialStatus') ? ` ${m.get('DialStatus')}` : ''}`,
    )
}
