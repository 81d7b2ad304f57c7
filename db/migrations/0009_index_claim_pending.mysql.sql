CREATE INDEX ix_master_claim_pending ON hold_dialer_master_data (isReserved, dial_status, push_date);
