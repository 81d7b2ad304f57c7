CREATE INDEX ix_master_pinned ON hold_dialer_master_data (agent_id, isReserved, dial_status);
