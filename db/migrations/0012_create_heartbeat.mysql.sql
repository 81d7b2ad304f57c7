CREATE TABLE hold_dialer_heartbeat (
  dialer_id VARCHAR(100) NOT NULL PRIMARY KEY,
  hostname VARCHAR(255) NOT NULL,
  pid INT NOT NULL,
  dial_mode VARCHAR(12) NOT NULL,
  started_at DATETIME(3) NOT NULL,
  seen_at DATETIME(3) NOT NULL,
  ami_state VARCHAR(20) NOT NULL,
  active_calls INT NOT NULL DEFAULT 0,
  details TEXT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE={{bin_collation}};
