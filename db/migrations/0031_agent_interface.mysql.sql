-- The agents' own way in (docs/agent-interface.md): a PIN per agent, stored only as a salted scrypt
-- hash; why an agent paused and since when their presence holds.
ALTER TABLE dialer_employee ADD COLUMN pin_hash VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NULL;
ALTER TABLE dialer_employee ADD COLUMN pause_reason VARCHAR(64) NULL;
ALTER TABLE dialer_employee ADD COLUMN presence_since DATETIME(3) NULL;
-- Signed-in agents: the SHA-256 of each session's token (the token itself is only in the agent's
-- cookie), so every dialer sharing the database knows every session.
CREATE TABLE hold_dialer_agent_session (
  token_hash CHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
  employee_id INT NOT NULL,
  created_at DATETIME(3) NOT NULL,
  expires_at DATETIME(3) NOT NULL,
  KEY ix_agent_session_employee (employee_id),
  KEY ix_agent_session_expires (expires_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE={{bin_collation}};
-- Sign-in attempts of the last minutes, by agent (`agent:<extension>`) and by client address
-- (`addr:<address>`): the limit holds across dialers.
CREATE TABLE hold_dialer_agent_sign_in (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  limit_key VARCHAR(100) NOT NULL,
  attempted_at DATETIME(3) NOT NULL,
  KEY ix_agent_sign_in_key (limit_key, attempted_at),
  KEY ix_agent_sign_in_at (attempted_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE={{bin_collation}};
