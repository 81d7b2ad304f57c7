import type { Db } from '@hold-dialer/db'
import type { ClaimedLead } from './candidates.js'
import { claimMysql } from './claim-mysql.js'
import { claimSqlite } from './claim-sqlite.js'
import type { DueProbeMemo } from './due-probe.js'
import type { LeadClaim } from './request.js'

export type { ClaimedLead } from './candidates.js'
export { DueProbeMemo } from './due-probe.js'
export type { ClaimRequest, LeadClaim } from './request.js'

/**
 * Claims the next lead in the order of DECISIONS section 7 (due callbacks, due retries, Pending),
 * marks it Calling and reserved by this dialer, and keeps its status to restore if the originate
 * fails; with `agentId`, takes that agent in the same transaction. Never the same lead to two
 * claimers at once: MySQL locks it (`FOR UPDATE SKIP LOCKED`, claim-mysql.ts), SQLite has one writer
 * (claim-sqlite.ts). `memo`: the claim leaves out the probe for due callbacks and retries (MySQL) or
 * their parts (SQLite) while one of the same shape found none less than `memo.ttlMs` ago
 * (due-probe.ts).
 */
export async function claimLead(
  db: Db,
  req: LeadClaim,
  memo?: DueProbeMemo,
): Promise<ClaimedLead | undefined> {
  if (req.dialablePriorities.length === 0) return undefined
  return db.dialect === 'mysql' ? claimMysql(db, req, memo) : claimSqlite(db, req, memo)
}
