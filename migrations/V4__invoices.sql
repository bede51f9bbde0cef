-- Invoices with their own copies of lines and payments (a later price change never touches
-- them). Amounts are decimal TEXT, exact. Times: issued_at is UTC (RFC 3339); issue_date_time
-- is the IssueDateTime the CIS saw (Tirane time); issue_date is the local date, for filters.

CREATE TABLE invoices (
    id                       INTEGER PRIMARY KEY,
    company_id               INTEGER NOT NULL REFERENCES companies(id),
    business_unit_id         INTEGER REFERENCES business_units(id),
    user_id                  INTEGER REFERENCES users(id),
    internal_id              TEXT NOT NULL,
    year                     INTEGER NOT NULL,
    kind                     TEXT NOT NULL,
    api_version              INTEGER NOT NULL,
    doc_type                 TEXT,
    original_invoice_iic     TEXT,
    tcr_code                 TEXT,
    ord_num                  INTEGER NOT NULL,
    number                   TEXT NOT NULL,
    inv_num                  TEXT NOT NULL,
    issued_at                TEXT NOT NULL,
    issue_date               TEXT NOT NULL,
    issue_date_time          TEXT NOT NULL,
    operator_code            TEXT,
    business_unit_code       TEXT,
    currency                 TEXT NOT NULL,
    exchange_rate            TEXT NOT NULL,
    gross                    TEXT NOT NULL,
    net                      TEXT NOT NULL,
    vat                      TEXT NOT NULL,
    discount                 TEXT NOT NULL,
    discount_gross           TEXT NOT NULL,
    fee                      TEXT NOT NULL,
    total                    TEXT NOT NULL,
    gross_all                TEXT NOT NULL,
    net_all                  TEXT NOT NULL,
    vat_all                  TEXT NOT NULL,
    discount_all             TEXT NOT NULL,
    invoice_discount_type    TEXT,
    invoice_discount_value   TEXT,
    client_id                INTEGER,
    buyer_name               TEXT,
    buyer_id_type            TEXT,
    buyer_id_value           TEXT,
    buyer_address            TEXT,
    buyer_city               TEXT,
    buyer_country            TEXT,
    self_issue_type          TEXT,
    due_date                 TEXT,
    delivery_date            TEXT,
    supply_start_date        TEXT,
    supply_end_date          TEXT,
    reverse_charge           INTEGER NOT NULL DEFAULT 0,
    periodic_invoice         INTEGER NOT NULL DEFAULT 0,
    notes                    TEXT,
    bank_account_id          INTEGER,
    iic                      TEXT NOT NULL,
    iic_signature            TEXT NOT NULL,
    header_uuid              TEXT NOT NULL,
    fic                      TEXT,
    eic                      TEXT,
    verify_url               TEXT NOT NULL,
    search_text              TEXT NOT NULL,
    created_at               TEXT NOT NULL
);
CREATE UNIQUE INDEX invoices_internal_id ON invoices(company_id, year, internal_id);
CREATE UNIQUE INDEX invoices_iic ON invoices(iic);
CREATE INDEX invoices_company_id ON invoices(company_id, id);
CREATE INDEX invoices_company_kind ON invoices(company_id, kind, id);
CREATE INDEX invoices_company_date ON invoices(company_id, issue_date, id);
CREATE INDEX invoices_numbering ON invoices(company_id, year, kind, tcr_code, ord_num);

CREATE TABLE invoice_lines (
    id               INTEGER PRIMARY KEY,
    invoice_id       INTEGER NOT NULL REFERENCES invoices(id) ON DELETE CASCADE,
    position         INTEGER NOT NULL,
    product_name     TEXT NOT NULL,
    product_code     TEXT NOT NULL,
    unit             TEXT NOT NULL,
    unit_code        TEXT,
    quantity         TEXT NOT NULL,
    price            TEXT NOT NULL,
    total            TEXT NOT NULL,
    discount_rate    TEXT NOT NULL,
    discount         TEXT NOT NULL,
    vat_rate         TEXT NOT NULL,
    exemption        TEXT,
    unit_price_net   TEXT NOT NULL,
    rebate           TEXT,
    net              TEXT NOT NULL,
    vat              TEXT NOT NULL,
    gross            TEXT NOT NULL
);
CREATE INDEX invoice_lines_invoice ON invoice_lines(invoice_id, position);

CREATE TABLE invoice_payments (
    id             INTEGER PRIMARY KEY,
    invoice_id     INTEGER NOT NULL REFERENCES invoices(id) ON DELETE CASCADE,
    position       INTEGER NOT NULL,
    type           TEXT NOT NULL,
    amount         TEXT NOT NULL,
    company_card   TEXT,
    vouchers       TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX invoice_payments_invoice ON invoice_payments(invoice_id, position);
