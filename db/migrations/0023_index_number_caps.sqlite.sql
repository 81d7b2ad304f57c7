-- The per-number caps look a number up among the leads being dialed and among its calls.
CREATE INDEX ix_master_phone ON hold_dialer_master_data (phone_number, isReserved);
CREATE INDEX ix_attempts_phone ON hold_dialer_call_attempts (phone_number, started_at);
