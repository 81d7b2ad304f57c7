ALTER TABLE dialer_employee ADD COLUMN on_call_by TEXT NULL;
ALTER TABLE dialer_employee ADD COLUMN on_call_since TEXT NULL;
