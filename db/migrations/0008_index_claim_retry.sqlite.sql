CREATE INDEX ix_master_claim_retry ON hold_dialer_master_data (isReserved, dial_status, next_retry_at);
