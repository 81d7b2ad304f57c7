CREATE TABLE hold_dialer_call_attempts (
  id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  master_id INTEGER NOT NULL,
  oli_id TEXT NOT NULL,
  attempt_no INTEGER NOT NULL,
  dialer_id TEXT NOT NULL,
  dial_mode TEXT NOT NULL,
  agent_id INTEGER NULL,
  agent_extension TEXT NULL,
  phone_number TEXT NOT NULL,
  action_id TEXT NULL,
  uniqueid TEXT NULL,
  linkedid TEXT NULL,
  outcome TEXT NOT NULL,
  ami_dial_status TEXT NULL,
  originate_reason INTEGER NULL,
  hangup_cause INTEGER NULL,
  hangup_cause_txt TEXT NULL,
  hangup_by TEXT NULL,
  started_at TEXT NOT NULL,
  answered_at TEXT NULL,
  ended_at TEXT NOT NULL,
  talk_seconds INTEGER NULL
);
CREATE INDEX ix_attempts_master ON hold_dialer_call_attempts (master_id, started_at);
CREATE INDEX ix_attempts_oli_id ON hold_dialer_call_attempts (oli_id, started_at);
