CREATE INDEX ix_master_claim_callback ON hold_dialer_master_data (isReserved, dial_status, callback_scheduled_at);
