-- The archived copy keeps the lead's international form, as it keeps every other master column.
ALTER TABLE hold_dialer_disposed ADD COLUMN phone_e164 VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NULL;
