-- Do-not-call list: numbers never to be dialed (a national registry's numbers, a customer's own
-- request). `digits` is the number as leads store it (digits only, the form the CRM pushes), so the
-- claim's check is one primary-key look-up. `expires_at` NULL: listed until removed.
CREATE TABLE hold_dialer_dnc (
  digits VARCHAR(15) NOT NULL PRIMARY KEY,
  source VARCHAR(100) NULL,
  added_at DATETIME(3) NOT NULL,
  expires_at DATETIME(3) NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE={{bin_collation}};
