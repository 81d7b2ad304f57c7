-- Each call records the international form it dialed; the per-number caps count calls by it.
ALTER TABLE hold_dialer_call_attempts ADD COLUMN phone_e164 VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NULL;
CREATE INDEX ix_attempts_phone_e164 ON hold_dialer_call_attempts (phone_e164, started_at);
DROP INDEX ix_attempts_phone ON hold_dialer_call_attempts;
