-- The owner's page in chain mode (src/hq/today.rs) reads each shop's day as the shop's own page
-- does: every invoice's gross in lek and its rate, and its payments.

ALTER TABLE invoices ADD COLUMN gross_all TEXT, ADD COLUMN exchange_rate TEXT;
UPDATE invoices i SET gross_all = r.row->>'gross_all', exchange_rate = r.row->>'exchange_rate'
    FROM shop_rows r
    WHERE r.shop_id = i.shop_id AND r.tbl = 'invoices' AND r.key = '[' || i.id || ']';

CREATE TABLE invoice_payments (
    shop_id     BIGINT NOT NULL,
    invoice_id  BIGINT NOT NULL,
    position    BIGINT NOT NULL,
    type        TEXT NOT NULL,
    amount      TEXT NOT NULL,
    PRIMARY KEY (shop_id, invoice_id, position)
);
INSERT INTO invoice_payments
    SELECT shop_id, (row->>'invoice_id')::bigint, (row->>'position')::bigint, row->>'type', row->>'amount'
    FROM shop_rows WHERE tbl = 'invoice_payments';
