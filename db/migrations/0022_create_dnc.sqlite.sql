-- Do-not-call list: numbers never to be dialed (a national registry's numbers, a customer's own
-- request). `digits` is the number as leads store it (digits only, the form the CRM pushes), so the
-- claim's check is one primary-key look-up. `expires_at` NULL: listed until removed.
CREATE TABLE hold_dialer_dnc (
  digits TEXT NOT NULL PRIMARY KEY,
  source TEXT NULL,
  added_at TEXT NOT NULL,
  expires_at TEXT NULL
) WITHOUT ROWID;
