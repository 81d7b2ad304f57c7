-- The agents' own way in (docs/agent-interface.md): a PIN per agent, stored only as a salted scrypt
-- hash; why an agent paused and since when their presence holds.
ALTER TABLE dialer_employee ADD COLUMN pin_hash TEXT NULL;
ALTER TABLE dialer_employee ADD COLUMN pause_reason TEXT NULL;
ALTER TABLE dialer_employee ADD COLUMN presence_since TEXT NULL;
-- Signed-in agents: the SHA-256 of each session's token (the token itself is only in the agent's
-- cookie), so every dialer sharing the database knows every session.
CREATE TABLE hold_dialer_agent_session (
  token_hash TEXT NOT NULL PRIMARY KEY,
  employee_id INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX ix_agent_session_employee ON hold_dialer_agent_session (employee_id);
CREATE INDEX ix_agent_session_expires ON hold_dialer_agent_session (expires_at);
-- Sign-in attempts of the last minutes, by agent (`agent:<extension>`) and by client address
-- (`addr:<address>`): the limit holds across dialers.
CREATE TABLE hold_dialer_agent_sign_in (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  limit_key TEXT NOT NULL,
  attempted_at TEXT NOT NULL
);
CREATE INDEX ix_agent_sign_in_key ON hold_dialer_agent_sign_in (limit_key, attempted_at);
CREATE INDEX ix_agent_sign_in_at ON hold_dialer_agent_sign_in (attempted_at);
