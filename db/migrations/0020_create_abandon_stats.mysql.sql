-- Predictive mode's abandon-rate governor: answered calls and abandoned ones per dialer per hour, so the
-- rolling window (30 days or 24 hours) survives restarts and is shared by every dialer.
CREATE TABLE hold_dialer_abandon_stats (
  bucket_start DATETIME(3) NOT NULL,
  dialer_id VARCHAR(100) NOT NULL,
  answered INT NOT NULL DEFAULT 0,
  abandoned INT NOT NULL DEFAULT 0,
  PRIMARY KEY (bucket_start, dialer_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE={{bin_collation}};
