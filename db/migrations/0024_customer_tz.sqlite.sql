-- The customer's time zones, derived from the phone number at push (libphonenumber's map): IANA
-- names joined by a space, or TIMEZONE when the number maps to none; NULL on leads pushed before.
ALTER TABLE hold_dialer_master_data ADD COLUMN customer_tz TEXT NULL;
ALTER TABLE hold_dialer_disposed ADD COLUMN customer_tz TEXT NULL;
CREATE INDEX ix_master_customer_tz ON hold_dialer_master_data (customer_tz);
