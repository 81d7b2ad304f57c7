import { createHash, randomBytes } from 'node:crypto'
import type { Database } from '@hold-dialer/db'
import { toDbTime } from '@hold-dialer/rules'
import type { Kysely } from 'kysely'

/** The SHA-256 of a session token: what the database keeps, so a copy of the table signs no one in. */
function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

/**
 * Agents' sessions, like the console's (a random token in an HttpOnly cookie, with an expiry), but
 * kept in the database: an agent signed in through one dialer is signed in on every dialer sharing
 * it, and a dialer's restart signs no one out.
 */
export class AgentSessions {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly ttlMs: number,
    private readonly now: () => Date,
  ) {}

  /** A new session for the agent; returns its token (for the cookie only). Expired sessions are dropped. */
  async open(employeeId: number): Promise<string> {
    const now = this.now()
    await this.db.deleteFrom('hold_dialer_agent_session').where('expires_at', '<=', toDbTime(now)).execute()
    const token = randomBytes(32).toString('base64url')
    await this.db
      .insertInto('hold_dialer_agent_session')
      .values({
        token_hash: tokenHash(token),
        employee_id: employeeId,
        created_at: toDbTime(now),
        expires_at: toDbTime(new Date(now.getTime() + this.ttlMs)),
      })
      .execute()
    return token
  }

  /** The signed-in agent's id, or undefined for no session, an unknown one or an expired one. */
  async agentOf(token: string | undefined): Promise<number | undefined> {
    if (!token) return undefined
    const row = await this.db
      .selectFrom('hold_dialer_agent_session')
      .select(['employee_id', 'expires_at'])
      .where('token_hash', '=', tokenHash(token))
      .executeTakeFirst()
    if (!row) return undefined
    if (row.expires_at <= toDbTime(this.now())) {
      await this.close(token)
      return undefined
    }
    return Number(row.employee_id)
  }

  async close(token: string | undefined): Promise<void> {
    if (!token) return
    await this.db.deleteFrom('hold_dialer_agent_session').where('token_hash', '=', tokenHash(token)).execute()
  }
}
