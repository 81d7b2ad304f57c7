CREATE TABLE hold_dialer_rnr_outbox (
  id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  master_id INTEGER NOT NULL,
  oli_id TEXT NOT NULL,
  agent_id INTEGER NULL,
  to_address TEXT NULL,
  subject TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT NOT NULL,
  last_error TEXT NULL,
  sent_at TEXT NULL
);
CREATE INDEX ix_rnr_pending ON hold_dialer_rnr_outbox (sent_at, next_attempt_at);
