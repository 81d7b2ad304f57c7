-- The number's international form (E.164, `+3612345201`), worked out at push from the text sent:
-- what is dialed, matched against the do-not-call list, counted by the per-number caps and placed
-- on a clock. NULL: not worked out yet (a row written before this column, or by an older API: the
-- dialer and `pnpm phones backfill` fill it); '': the number cannot be read, and it is never dialed.
-- The caps look a number up among the leads being dialed by this column now, not by the digits.
ALTER TABLE hold_dialer_master_data ADD COLUMN phone_e164 VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NULL;
CREATE INDEX ix_master_phone_e164 ON hold_dialer_master_data (phone_e164, isReserved);
DROP INDEX ix_master_phone ON hold_dialer_master_data;
