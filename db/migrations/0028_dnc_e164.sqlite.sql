-- The do-not-call list matches people, not spellings: each entry's international form. Entries
-- added from now on keep the international digits in `digits` (so one person is one key); entries
-- from before keep their digits and have `e164` filled by the dialer or `pnpm phones backfill`
-- (NULL until then, '' when they cannot be read). The claim matches either column.
ALTER TABLE hold_dialer_dnc ADD COLUMN e164 TEXT NULL;
CREATE INDEX ix_dnc_e164 ON hold_dialer_dnc (e164);
