CREATE TABLE dialer_employee (
  id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  extension TEXT NULL UNIQUE,
  email TEXT NULL,
  is_active INTEGER NOT NULL DEFAULT 1,
  presence TEXT NOT NULL DEFAULT 'offline',
  panel_seen_at TEXT NULL,
  wrap_until TEXT NULL
);
