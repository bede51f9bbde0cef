-- Every page a document's transaction changes is written to the log and synced before the POS is
-- answered, and the sync's cost grows with each page (about 8 µs a page on the development box,
-- over a base of about 90 µs). A cash sale changed 22 to 25 pages; this takes three of them away.

-- A document's lines and payments are stored in the order of their key, the document and the
-- position, with no rowid of their own: an insert changes the table's page only, not also a page of
-- a separate (invoice_id, position) index. Nothing refers to a line's or a payment's rowid.
CREATE TABLE invoice_lines_by_invoice (
    invoice_id        INTEGER NOT NULL REFERENCES invoices(id) ON DELETE CASCADE,
    position          INTEGER NOT NULL,
    product_name      TEXT NOT NULL,
    product_code      TEXT NOT NULL,
    unit              TEXT NOT NULL,
    unit_code         TEXT,
    quantity          TEXT NOT NULL,
    price             TEXT NOT NULL,
    total             TEXT NOT NULL,
    discount_rate     TEXT NOT NULL,
    discount          TEXT NOT NULL,
    vat_rate          TEXT NOT NULL,
    exemption         TEXT,
    unit_price_net    TEXT NOT NULL,
    rebate            TEXT,
    net               TEXT NOT NULL,
    vat               TEXT NOT NULL,
    gross             TEXT NOT NULL,
    original_position INTEGER,
    PRIMARY KEY (invoice_id, position)
) WITHOUT ROWID;
INSERT INTO invoice_lines_by_invoice (invoice_id, position, product_name, product_code, unit, unit_code, quantity,
        price, total, discount_rate, discount, vat_rate, exemption, unit_price_net, rebate, net, vat, gross,
        original_position)
    SELECT invoice_id, position, product_name, product_code, unit, unit_code, quantity, price, total, discount_rate,
        discount, vat_rate, exemption, unit_price_net, rebate, net, vat, gross, original_position
    FROM invoice_lines;
DROP TABLE invoice_lines;
ALTER TABLE invoice_lines_by_invoice RENAME TO invoice_lines;

CREATE TABLE invoice_payments_by_invoice (
    invoice_id     INTEGER NOT NULL REFERENCES invoices(id) ON DELETE CASCADE,
    position       INTEGER NOT NULL,
    type           TEXT NOT NULL,
    amount         TEXT NOT NULL,
    company_card   TEXT,
    vouchers       TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (invoice_id, position)
) WITHOUT ROWID;
INSERT INTO invoice_payments_by_invoice (invoice_id, position, type, amount, company_card, vouchers)
    SELECT invoice_id, position, type, amount, company_card, vouchers FROM invoice_payments;
DROP TABLE invoice_payments;
ALTER TABLE invoice_payments_by_invoice RENAME TO invoice_payments;

-- The reports look documents up by kind and date for two kinds only: corrective documents (the
-- reversals list) and open orders (`invoices_open_orders`, V16). An index of those kinds alone
-- leaves a sale's transaction without a page of it.
DROP INDEX invoices_company_kind_date;
CREATE INDEX invoices_reversals ON invoices(company_id, issue_date, id) WHERE document_kind = 'CORRECTIVE';
