-- Every call placed leaves an attempt row, whatever crashes (DECISIONS section 8): the claim writes it
-- (outcome 'Dialing', no end yet) in its own transaction, the settle completes it, and a call whose
-- result was lost in a crash is completed as 'Unknown'. A row is found by its call's key (linkedid).
-- On MariaDB 10.4+ and MySQL 8 making a column NULL-able is an in-place change.
ALTER TABLE hold_dialer_call_attempts MODIFY ended_at DATETIME(3) NULL;
CREATE INDEX ix_attempts_linkedid ON hold_dialer_call_attempts (linkedid);
