-- Several PBXs: each agent belongs to one PBX (PBX_NAME of the dialers that serve it) and each dialer
-- says in its heartbeat which PBX it serves. A single-PBX centre keeps `default` everywhere.
ALTER TABLE dialer_employee ADD COLUMN pbx VARCHAR(64) NOT NULL DEFAULT 'default';
ALTER TABLE hold_dialer_heartbeat ADD COLUMN pbx VARCHAR(64) NOT NULL DEFAULT 'default';
