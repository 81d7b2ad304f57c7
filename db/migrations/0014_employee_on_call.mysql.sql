-- Which dialer has this agent on a call: a claim takes the agent and the lead in one transaction, so
-- two dialers never ring the same desk at once. Cleared at settle; a stale one is released like a
-- stale lead reservation.
ALTER TABLE dialer_employee ADD COLUMN on_call_by VARCHAR(100) NULL, ADD COLUMN on_call_since DATETIME(3) NULL;
