-- Issue 32: an invoice names the warehouse transfer note its goods already left with, so they
-- leave the shelf once; and a restore over newer documents leaves the numbering after them.

-- The note an invoice accounts for (`wtn_id` of the cash and non-cash bodies), written with it.
-- A row beside the invoice rather than a column of it: the invoice's row keeps the shape every
-- earlier schema wrote.
CREATE TABLE invoice_wtns (
    invoice_id  INTEGER PRIMARY KEY REFERENCES invoices(id) ON DELETE CASCADE,
    wtn_id      INTEGER NOT NULL REFERENCES wtns(id)
);
CREATE INDEX invoice_wtns_wtn ON invoice_wtns(wtn_id);

-- What of an article the note took off the shelf an invoice linked to it counted as its own
-- (positive), or a cancellation of that invoice gave back to the note (negative). What is left
-- of the note for the next linked invoice is what the note moved less the sum of these.
-- sale_id is the linked invoice; document_id the row that counted (the invoice itself, or one
-- of its corrective documents), so a document given up takes its rows with it.
CREATE TABLE wtn_invoiced (
    id           INTEGER PRIMARY KEY,
    wtn_id       INTEGER NOT NULL REFERENCES wtns(id),
    sale_id      INTEGER NOT NULL REFERENCES invoices(id),
    document_id  INTEGER NOT NULL REFERENCES invoices(id),
    product_id   INTEGER NOT NULL REFERENCES products(id),
    counted      TEXT NOT NULL
);
CREATE INDEX wtn_invoiced_wtn ON wtn_invoiced(wtn_id, product_id);
CREATE INDEX wtn_invoiced_sale ON wtn_invoiced(sale_id);
CREATE INDEX wtn_invoiced_document ON wtn_invoiced(document_id);

-- `arka restore --force` over a database that had gone further: the last number each sequence
-- had reached there (the CIS registered numbers up to it that this database does not hold), so
-- that the sequence goes on after it. sequence is `pipeline::Sequence::key` (cash:<TCR>,
-- noncash, wtn:<unit id>); replaced names the file the numbers were read from.
CREATE TABLE numbering_floors (
    company_id   INTEGER NOT NULL REFERENCES companies(id),
    sequence     TEXT NOT NULL,
    year         INTEGER NOT NULL,
    ord_num      INTEGER NOT NULL,
    replaced     TEXT NOT NULL,
    recorded_at  TEXT NOT NULL,
    PRIMARY KEY (company_id, sequence, year)
);
