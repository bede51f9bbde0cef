-- Every fiscal document in one table, told apart by document_kind (CASH, NONCASH, ORDER,
-- SUMMARY, CORRECTIVE), with plain columns reports can index: reversed_at on an invoice a
-- cancellation reversed (the time of its latest corrective document), original_invoice_id on
-- a corrective document, settled_by_invoice_id on an order its summary paid, and on a
-- corrective document's lines the position of the original line each one reverses.
ALTER TABLE invoices ADD COLUMN document_kind TEXT NOT NULL DEFAULT 'CASH';
UPDATE invoices SET document_kind = kind;
ALTER TABLE invoices ADD COLUMN original_invoice_id INTEGER REFERENCES invoices(id);
ALTER TABLE invoices ADD COLUMN reversed_at TEXT;
ALTER TABLE invoices ADD COLUMN settled_by_invoice_id INTEGER REFERENCES invoices(id);
ALTER TABLE invoice_lines ADD COLUMN original_position INTEGER;

CREATE INDEX invoices_company_document_kind ON invoices(company_id, document_kind, id);
CREATE INDEX invoices_original ON invoices(original_invoice_id) WHERE original_invoice_id IS NOT NULL;
CREATE INDEX invoices_company_reversed ON invoices(company_id, reversed_at) WHERE reversed_at IS NOT NULL;
CREATE INDEX invoices_settled_by ON invoices(settled_by_invoice_id) WHERE settled_by_invoice_id IS NOT NULL;
