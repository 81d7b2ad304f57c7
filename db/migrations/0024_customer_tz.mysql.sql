-- The customer's time zones, derived from the phone number at push (libphonenumber's map): IANA
-- names joined by a space, or TIMEZONE when the number maps to none; NULL on leads pushed before.
-- ASCII: zone names are, and a 42-zone toll-free number stays within the index's key length.
ALTER TABLE hold_dialer_master_data ADD COLUMN customer_tz VARCHAR(2000) CHARACTER SET ascii COLLATE ascii_bin NULL;
ALTER TABLE hold_dialer_disposed ADD COLUMN customer_tz VARCHAR(2000) CHARACTER SET ascii COLLATE ascii_bin NULL;
CREATE INDEX ix_master_customer_tz ON hold_dialer_master_data (customer_tz);
