CREATE INDEX ix_master_reserved ON hold_dialer_master_data (isReserved, reserved_at);
