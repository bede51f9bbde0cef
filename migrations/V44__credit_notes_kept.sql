-- The credit notes (381, non-cash invoices) the reversals report lists, kept apart (issue 46):
-- V33's index holds them but building it reads every invoice at the start (8 s a million rows),
-- so a database upgraded from the previous release keeps V20's index (`store::migrate`) and finds
-- its credit notes here. New ones are added by the trigger as they are stored; the ones already
-- in the books are found by the server after the start, a range of invoices a step
-- (`store::credit_notes`), from the first invoice to `until_id`, the last one when this ran.
-- Until then the report reads them as before this table. Nothing here reads the invoices.
CREATE TABLE credit_notes (
    invoice_id INTEGER PRIMARY KEY REFERENCES invoices(id) ON DELETE CASCADE,
    company_id INTEGER NOT NULL,
    issue_date TEXT NOT NULL
);
CREATE INDEX credit_notes_company_date ON credit_notes(company_id, issue_date, invoice_id);
CREATE TRIGGER credit_notes_kept AFTER INSERT ON invoices
    WHEN NEW.document_kind = 'NONCASH' AND NEW.doc_type = '381'
BEGIN
    INSERT OR IGNORE INTO credit_notes (invoice_id, company_id, issue_date) VALUES (NEW.id, NEW.company_id, NEW.issue_date);
END;
CREATE TABLE credit_notes_found (
    next_id INTEGER NOT NULL,
    until_id INTEGER NOT NULL
);
INSERT INTO credit_notes_found (next_id, until_id) SELECT 1, COALESCE(MAX(id), 0) FROM invoices;
