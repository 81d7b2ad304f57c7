-- Fencing (several dialers under faults): each claim stores a token of its own with the reservation.
-- The call it places is named after it (its ChannelId `hd-<lead id>-<token>`), and a settle, a
-- restore or an adoption writes to the lead only while the token is still the lead's: a dialer that
-- comes back late cannot overwrite a newer claim. NULL: not reserved since the column exists.
ALTER TABLE hold_dialer_master_data ADD COLUMN claim_token TEXT NULL;
-- A call whose lead had been claimed again (or released) by the time it ended: kept as an attempt
-- (the person was called) but not counted for the lead (attempt_no 0, not in its retry schedule).
ALTER TABLE hold_dialer_call_attempts ADD COLUMN superseded INTEGER NOT NULL DEFAULT 0;
