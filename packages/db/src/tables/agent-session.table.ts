import type { Generated, Insertable, Selectable } from 'kysely'

/** `hold_dialer_agent_session`: a signed-in agent's session, by the SHA-256 of its cookie's token. */
export interface AgentSessionTable {
  token_hash: string
  employee_id: number
  created_at: string
  expires_at: string
}

/** `hold_dialer_agent_sign_in`: one row per sign-in attempt and limit key, kept a few minutes. */
export interface AgentSignInTable {
  id: Generated<number>
  /** `agent:<extension>` or `addr:<client address>`. */
  limit_key: string
  attempted_at: string
}

export type AgentSession = Selectable<AgentSessionTable>
export type NewAgentSession = Insertable<AgentSessionTable>
