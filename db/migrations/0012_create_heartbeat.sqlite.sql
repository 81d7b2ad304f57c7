CREATE TABLE hold_dialer_heartbeat (
  dialer_id TEXT NOT NULL PRIMARY KEY,
  hostname TEXT NOT NULL,
  pid INTEGER NOT NULL,
  dial_mode TEXT NOT NULL,
  started_at TEXT NOT NULL,
  seen_at TEXT NOT NULL,
  ami_state TEXT NOT NULL,
  active_calls INTEGER NOT NULL DEFAULT 0,
  details TEXT NULL
);
