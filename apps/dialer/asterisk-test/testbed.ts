import { Asterisk } from '@hold-dialer/asterisk-testbed'
import type { TestDatabase } from '@hold-dialer/db/testing'
import { toDbTime } from '@hold-dialer/rules'
import type { Test } from 'tap'
import { type Rig, type RigOptions, rig } from '../test/harness.js'

export { memoryLogger } from '../test/harness.js'

/**
 * Settings that point the dialer at the test bed's Local channels (packages/asterisk-testbed): the
 * shipped dialplan (deploy/asterisk) with desks Local/<ext>@agents and customers Local/<n>@customers,
 * <n> in the international form the dialer dials by default (`Local/+5550001001@customers`).
 */
export const TESTBED_ENV: Record<string, string> = {
  AGENT_CHANNEL_TEMPLATE: 'Local/{extension}@agents',
  CUSTOMER_CHANNEL_TEMPLATE: 'Local/{number}@customers',
  RING_TIMEOUT_SECONDS: '4',
  // Real seconds on a real PBX; short enough for tests, long enough for a loaded machine.
  HOLD_TIMEOUT_SECONDS: '6',
}

/** Pinned callbacks (Mode B) with one retry, as the pinned tests set them. */
export const PINNED: Record<string, string> = {
  CALLBACK_MODE: 'pinned',
  RETRY_SECONDS: '0',
  RETRY_PATTERN: '[2]',
  MAX_TRIES: '2',
}

/** One real Asterisk for the whole test file, killed and removed at its end. */
export async function startAsterisk(t: Test): Promise<Asterisk> {
  const asterisk = await Asterisk.start()
  t.teardown(() => asterisk.close())
  return asterisk
}

/**
 * The real dialer and API on `database`, logged in to `asterisk` as the shipped manager.conf's
 * dialer user. Agents left from earlier subtests are deactivated, so each subtest dials only its own.
 */
export async function asteriskRig(
  t: Test,
  database: TestDatabase,
  asterisk: Asterisk,
  options: RigOptions = {},
): Promise<Rig> {
  await database.handle.kysely.updateTable('dialer_employee').set({ is_active: 0 }).execute()
  return rig(
    t,
    database,
    { port: asterisk.port, ...asterisk.dialerUser },
    { ...options, env: { ...TESTBED_ENV, ...options.env } },
  )
}

/** The agent on `extension`, active, ready and free (re-activated when an earlier subtest added it). */
export async function agent(
  r: Rig,
  extension: string,
  fields: Record<string, unknown> = {},
): Promise<number> {
  const db = r.database.handle.kysely
  const existing = await db
    .selectFrom('dialer_employee')
    .select('id')
    .where('extension', '=', extension)
    .executeTakeFirst()
  if (!existing) return r.insertAgent(extension, fields)
  await db
    .updateTable('dialer_employee')
    .set({
      is_active: 1,
      presence: 'ready',
      panel_seen_at: toDbTime(r.clock.now()),
      wrap_until: null,
      on_call_by: null,
      ...fields,
    })
    .where('id', '=', existing.id)
    .execute()
  return existing.id
}

/** Waits until the lead has left Calling (settled or restored) and is no longer reserved. */
export async function settled(r: Rig, oliId: string, timeoutMs = 300_000): Promise<Record<string, unknown>> {
  let row: Record<string, unknown> | undefined
  await r.until(
    `${oliId} settled`,
    async () => {
      row = await r.lead(oliId)
      return (
        row === undefined ||
        (row.dial_status !== 'Calling' && row.isReserved === 0 && Number(row.call_count) > 0)
      )
    },
    timeoutMs,
  )
  return row ?? {}
}
