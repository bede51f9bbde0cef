-- A number is handed out once: the ordinal is unique per company, year, sequence kind (CASH or
-- NONCASH) and TCR, so a numbering bug becomes a failed write, never a duplicate number. A
-- non-cash invoice has no TCR; SQLite treats NULLs as distinct in a UNIQUE index, so the index
-- is over COALESCE(tcr_code, '') and the numbering query uses the same expression.
CREATE UNIQUE INDEX invoices_number_unique ON invoices(company_id, year, kind, COALESCE(tcr_code, ''), ord_num);
DROP INDEX invoices_numbering;
