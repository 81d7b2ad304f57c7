-- Every call placed leaves an attempt row, whatever crashes (DECISIONS section 8): the claim writes it
-- (outcome 'Dialing', no end yet) in its own transaction, the settle completes it, and a call whose
-- result was lost in a crash is completed as 'Unknown'. A row is found by its call's key (linkedid).
-- SQLite cannot make a column NULL-able in place: the table is copied (its ids kept).
CREATE TABLE hold_dialer_call_attempts_new (
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
  ended_at TEXT NULL,
  talk_seconds INTEGER NULL,
  phone_e164 TEXT NULL,
  superseded INTEGER NOT NULL DEFAULT 0
);
INSERT INTO hold_dialer_call_attempts_new (id, master_id, oli_id, attempt_no, dialer_id, dial_mode, agent_id,
  agent_extension, phone_number, action_id, uniqueid, linkedid, outcome, ami_dial_status, originate_reason,
  hangup_cause, hangup_cause_txt, hangup_by, started_at, answered_at, ended_at, talk_seconds, phone_e164,
  superseded)
SELECT id, master_id, oli_id, attempt_no, dialer_id, dial_mode, agent_id, agent_extension, phone_number,
  action_id, uniqueid, linkedid, outcome, ami_dial_status, originate_reason, hangup_cause, hangup_cause_txt,
  hangup_by, started_at, answered_at, ended_at, talk_seconds, phone_e164, superseded
FROM hold_dialer_call_attempts;
DROP TABLE hold_dialer_call_attempts;
ALTER TABLE hold_dialer_call_attempts_new RENAME TO hold_dialer_call_attempts;
CREATE INDEX ix_attempts_master ON hold_dialer_call_attempts (master_id, started_at);
CREATE INDEX ix_attempts_oli_id ON hold_dialer_call_attempts (oli_id, started_at);
CREATE INDEX ix_attempts_ended ON hold_dialer_call_attempts (ended_at);
CREATE INDEX ix_attempts_phone_e164 ON hold_dialer_call_attempts (phone_e164, started_at);
CREATE INDEX ix_attempts_linkedid ON hold_dialer_call_attempts (linkedid);
