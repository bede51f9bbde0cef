-- The way back of V33 (`arka downgrade`): the previous release's reversals report lists the
-- corrective documents alone, from V20's index.
DROP INDEX invoices_reversals;
CREATE INDEX invoices_reversals ON invoices(company_id, issue_date, id) WHERE document_kind = 'CORRECTIVE';
