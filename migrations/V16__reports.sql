-- Reports read daily totals, never the documents themselves: the invoice store's insert adds a
-- document to them and its delete takes it out again, in the document's own transaction, so
-- they never drift (store::report_totals; `arka reports verify` checks, `arka reports rebuild`
-- rebuilds). Amounts are INTEGER cents (quantities thousandths), so SUM is exact. Amounts in
-- lek are the ones the CIS registered: each line converted at the invoice's rate and rounded
-- to the cent. Keys hold 0 or '' for "none", as NULLs would never meet in ON CONFLICT.
-- kind: CASH, NONCASH, EINVOICE, SUMMARY, CORRECTIVE (of a sale), ORDER, ORDER_CORRECTIVE.

CREATE TABLE report_sales (
    company_id        INTEGER NOT NULL,
    day               TEXT NOT NULL,
    business_unit_id  INTEGER NOT NULL,
    tcr_code          TEXT NOT NULL,
    user_id           INTEGER NOT NULL,
    operator_code     TEXT NOT NULL,
    kind              TEXT NOT NULL,
    currency          TEXT NOT NULL,
    documents         INTEGER NOT NULL,
    net               INTEGER NOT NULL,
    vat               INTEGER NOT NULL,
    gross             INTEGER NOT NULL,
    discount          INTEGER NOT NULL,
    fee               INTEGER NOT NULL,
    -- In the invoice's own currency (equal to the lek figures for ALL).
    net_currency      INTEGER NOT NULL,
    vat_currency      INTEGER NOT NULL,
    gross_currency    INTEGER NOT NULL,
    -- What the documents moved the till's cash balance by (the balance's own rule).
    till              INTEGER NOT NULL,
    PRIMARY KEY (company_id, day, business_unit_id, tcr_code, user_id, operator_code, kind, currency)
) WITHOUT ROWID;

-- One row per VAT rate or exemption: the taxable base and the VAT of the lines.
CREATE TABLE report_vat (
    company_id        INTEGER NOT NULL,
    day               TEXT NOT NULL,
    business_unit_id  INTEGER NOT NULL,
    tcr_code          TEXT NOT NULL,
    user_id           INTEGER NOT NULL,
    operator_code     TEXT NOT NULL,
    kind              TEXT NOT NULL,
    vat_rate          TEXT NOT NULL,
    exemption         TEXT NOT NULL,
    documents         INTEGER NOT NULL,
    lines             INTEGER NOT NULL,
    net               INTEGER NOT NULL,
    vat               INTEGER NOT NULL,
    PRIMARY KEY (company_id, day, business_unit_id, tcr_code, user_id, operator_code, kind, vat_rate, exemption)
) WITHOUT ROWID;

CREATE TABLE report_payments (
    company_id        INTEGER NOT NULL,
    day               TEXT NOT NULL,
    business_unit_id  INTEGER NOT NULL,
    tcr_code          TEXT NOT NULL,
    user_id           INTEGER NOT NULL,
    operator_code     TEXT NOT NULL,
    kind              TEXT NOT NULL,
    payment_method    TEXT NOT NULL,
    documents         INTEGER NOT NULL,
    amount            INTEGER NOT NULL,
    PRIMARY KEY (company_id, day, business_unit_id, tcr_code, user_id, operator_code, kind, payment_method)
) WITHOUT ROWID;

-- Sales and their reversals only (orders are not sales until their summary pays them).
CREATE TABLE report_products (
    company_id        INTEGER NOT NULL,
    day               TEXT NOT NULL,
    business_unit_id  INTEGER NOT NULL,
    tcr_code          TEXT NOT NULL,
    product_code      TEXT NOT NULL,
    product_name      TEXT NOT NULL,
    unit              TEXT NOT NULL,
    lines             INTEGER NOT NULL,
    quantity          INTEGER NOT NULL,
    net               INTEGER NOT NULL,
    vat               INTEGER NOT NULL,
    PRIMARY KEY (company_id, day, business_unit_id, tcr_code, product_code)
) WITHOUT ROWID;

-- Sales and reversals with a buyer, keyed by the buyer's identifier (or name when it has none).
CREATE TABLE report_clients (
    company_id        INTEGER NOT NULL,
    day               TEXT NOT NULL,
    business_unit_id  INTEGER NOT NULL,
    buyer_key         TEXT NOT NULL,
    client_id         INTEGER,
    buyer_name        TEXT NOT NULL,
    buyer_id_type     TEXT,
    buyer_id_value    TEXT,
    documents         INTEGER NOT NULL,
    quantity          INTEGER NOT NULL,
    net               INTEGER NOT NULL,
    vat               INTEGER NOT NULL,
    gross             INTEGER NOT NULL,
    PRIMARY KEY (company_id, day, business_unit_id, buyer_key)
) WITHOUT ROWID;

-- Whether the totals above hold every stored document: 0 right after this migration, so the
-- first open of an upgraded database builds them from its documents (once).
CREATE TABLE report_state (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    built   INTEGER NOT NULL
);
INSERT INTO report_state (id, built) VALUES (1, 0);

-- The cash sales of a day as its close computed them (the X/Z report reads them back).
ALTER TABLE cash_days ADD COLUMN cash_sales TEXT;

-- Waiting documents, reversals, open orders and open days in a period, without a scan.
CREATE INDEX invoices_waiting ON invoices(company_id, issue_date) WHERE fic IS NULL;
CREATE INDEX invoices_company_kind_date ON invoices(company_id, document_kind, issue_date, id);
CREATE INDEX invoices_open_orders ON invoices(company_id, issue_date)
    WHERE document_kind = 'ORDER' AND settled_by_invoice_id IS NULL AND reversed_at IS NULL;
CREATE INDEX cash_actions_company_day ON cash_actions(company_id, business_day);
CREATE INDEX cash_days_company_day ON cash_days(company_id, business_day, id);
CREATE INDEX cash_days_open ON cash_days(company_id) WHERE closed_at IS NULL;
