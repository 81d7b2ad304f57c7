-- Answering machine detection (DECISIONS section 11): each attempt keeps AMD()'s verdict (AMDSTATUS:
-- HUMAN, MACHINE, NOTSURE, HANGUP; NULL when AMD did not run), its cause (AMDCAUSE, e.g.
-- LONGGREETING-1500-1500) and how long detection took from the answer. The governor's window keeps
-- the calls hung up as machines apart from the answered ones: it counts a configured share of them.
ALTER TABLE hold_dialer_call_attempts ADD COLUMN amd_status TEXT NULL;
ALTER TABLE hold_dialer_call_attempts ADD COLUMN amd_cause TEXT NULL;
ALTER TABLE hold_dialer_call_attempts ADD COLUMN amd_ms INTEGER NULL;
ALTER TABLE hold_dialer_abandon_stats ADD COLUMN machines INTEGER NOT NULL DEFAULT 0;
