CREATE TABLE hold_dialer_abandon_stats (
  bucket_start TEXT NOT NULL,
  dialer_id TEXT NOT NULL,
  answered INTEGER NOT NULL DEFAULT 0,
  abandoned INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (bucket_start, dialer_id)
);
