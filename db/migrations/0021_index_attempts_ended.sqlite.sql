-- The supervisor console reads today's outcomes and the abandon rate over the last hours by the time a
-- call ended; without this index both read the whole attempts table every few seconds.
CREATE INDEX ix_attempts_ended ON hold_dialer_call_attempts (ended_at);
