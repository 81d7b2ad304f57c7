// Answering machine detection's part in the abandon-rate governor (DECISIONS section 11).

/** The governor's window as the database holds it: calls AMD hung up are kept apart. */
export interface AmdWindowTotals {
  /** Answered calls a person took (AMD said HUMAN or NOTSURE, or did not run). */
  answered: number
  /** Of those, the ones no agent took within COMPLIANCE_SECONDS of the answer. */
  abandoned: number
  /** Answered calls AMD took for an answering machine and hung up. */
  machines: number
}

/**
 * The window the governor and pacing read: the people who answered, plus `machineAbandonShare` of the
 * calls AMD hung up, each counted as answered and abandoned. Stock AMD() takes 15-25% of live people
 * for machines, and a regulator counts a live person hung up that way as an abandoned call: the share
 * is the centre's estimate of those (AMD_MACHINE_ABANDON_SHARE, default 0.2). The share is applied
 * when the window is read, so a changed estimate applies to the whole window at once.
 */
export function governedWindow(
  totals: AmdWindowTotals,
  machineAbandonShare: number,
): { answered: number; abandoned: number } {
  const counted = totals.machines * machineAbandonShare
  return { answered: totals.answered + counted, abandoned: totals.abandoned + counted }
}

/** AMD()'s AMDSTATUS values (apps/app_amd.c); an empty status means AMD could not run. */
export type AmdStatus = 'HUMAN' | 'MACHINE' | 'NOTSURE' | 'HANGUP' | ''

/**
 * Whether a verdict sends the call on to an agent: everything but MACHINE does (NOTSURE is taken as
 * a person, DECISIONS section 11), and in record-only mode a MACHINE does too.
 */
export function amdGoesToAgent(status: string, recordOnly: boolean): boolean {
  return recordOnly || status !== 'MACHINE'
}
