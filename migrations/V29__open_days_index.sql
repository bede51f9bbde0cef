-- The owner's dashboard asks for the tills' days still open at every call: a handful of rows, but
-- found by reading every day the company ever had (14,600 over a decade of 4 TCRs, 20-35 ms with
-- 512-byte pages, docs/src/records/decade.md). Only open days are in this index.
CREATE INDEX IF NOT EXISTS cash_days_open ON cash_days(company_id, tcr_code, id) WHERE closed_at IS NULL;
