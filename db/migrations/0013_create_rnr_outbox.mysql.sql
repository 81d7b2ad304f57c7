CREATE TABLE hold_dialer_rnr_outbox (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  master_id BIGINT NOT NULL,
  oli_id VARCHAR(100) NOT NULL,
  agent_id INT NULL,
  to_address VARCHAR(254) NULL,
  subject VARCHAR(255) NOT NULL,
  body TEXT NOT NULL,
  created_at DATETIME(3) NOT NULL,
  attempts INT NOT NULL DEFAULT 0,
  next_attempt_at DATETIME(3) NOT NULL,
  last_error VARCHAR(500) NULL,
  sent_at DATETIME(3) NULL,
  KEY ix_rnr_pending (sent_at, next_attempt_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE={{bin_collation}};
