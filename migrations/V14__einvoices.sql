-- E-invoices and purchase invoices (issue 14).
--
-- einvoices: the e-invoice part of a non-cash invoice (a row of invoices, numbered in the
-- business's non-cash sequence): its UBL profile, and once fiscalized the signed UBL document
-- registered with the e-invoice platform. The EIC goes on invoices.eic (V4) when it comes.
CREATE TABLE einvoices (
    invoice_id      INTEGER PRIMARY KEY REFERENCES invoices(id) ON DELETE CASCADE,
    company_id      INTEGER NOT NULL REFERENCES companies(id),
    process         TEXT NOT NULL,
    ubl             TEXT,
    registered_at   TEXT
);
CREATE INDEX einvoices_company ON einvoices(company_id, invoice_id);

-- purchase_invoices: e-invoices addressed to the company, as the platform last listed them
-- (GetEinvoices, PartyType BUYER), so that a page already read is served while it is away.
-- received_at is UTC (RFC 3339), received_date the Tirane date the list filters on.
CREATE TABLE purchase_invoices (
    company_id      INTEGER NOT NULL REFERENCES companies(id),
    eic             TEXT NOT NULL,
    doc_number      TEXT NOT NULL,
    doc_type        TEXT NOT NULL,
    seller_nuis     TEXT,
    received_at     TEXT NOT NULL,
    received_date   TEXT NOT NULL,
    due_date        TEXT,
    amount          TEXT NOT NULL,
    currency        TEXT NOT NULL,
    status          TEXT NOT NULL,
    fetched_at      TEXT NOT NULL,
    PRIMARY KEY (company_id, eic)
);
CREATE INDEX purchase_invoices_received ON purchase_invoices(company_id, received_date, received_at);

-- The windows of days the platform was asked for, and when: what the cache can stand for.
CREATE TABLE purchase_invoice_reads (
    company_id      INTEGER NOT NULL REFERENCES companies(id),
    from_date       TEXT NOT NULL,
    to_date         TEXT NOT NULL,
    fetched_at      TEXT NOT NULL,
    PRIMARY KEY (company_id, from_date, to_date)
);

-- Names the taxpayer register (GetTaxpayers) gave, by NUIS: a supplier is looked up once.
CREATE TABLE taxpayer_names (
    nuis            TEXT PRIMARY KEY,
    name            TEXT NOT NULL,
    fetched_at      TEXT NOT NULL
);
