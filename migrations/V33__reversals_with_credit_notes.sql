-- The reversals report lists credit notes (doc_type 381: a non-cash invoice or an e-invoice that
-- takes back part of a sale) beside the corrective documents of cancellations (issue 41). Its
-- list reads this index in the order it shows, newest first; credit notes are few, so the index
-- stays the small one V20 made, and its WHERE is the list's own, word for word.
DROP INDEX invoices_reversals;
CREATE INDEX invoices_reversals ON invoices(company_id, issue_date, id)
    WHERE document_kind = 'CORRECTIVE' OR doc_type = '381';
