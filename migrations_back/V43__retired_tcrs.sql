-- The way back of V43 (`arka downgrade`): the previous release knows no retired TCR;
-- `store::downgrade` refuses while one is retired (the old release would number on it again), so
-- dropping the columns here drops nothing a till relies on.
DROP TABLE cis_only_einvoices;
ALTER TABLE fiscal_devices DROP COLUMN continued_by;
ALTER TABLE fiscal_devices DROP COLUMN retired_why;
ALTER TABLE fiscal_devices DROP COLUMN retired_at;
