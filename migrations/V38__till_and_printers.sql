-- Issue 45: the till and the shop's thermal printer. New tables only: a start does no work over
-- the existing rows.

-- Each till's receipt printer (ESC/POS): on the network (`host:port`) or a USB device file.
CREATE TABLE IF NOT EXISTS till_printers (
    company_id  INTEGER NOT NULL REFERENCES companies(id),
    tcr_code    TEXT NOT NULL,
    connection  TEXT NOT NULL CHECK (connection IN ('network', 'device')),
    address     TEXT NOT NULL,
    columns     INTEGER NOT NULL CHECK (columns IN (42, 48)),
    updated_at  TEXT NOT NULL,
    PRIMARY KEY (company_id, tcr_code)
);

-- A receipt that reached a printer once: every later print of it is a copy.
CREATE TABLE IF NOT EXISTS receipt_prints (
    invoice_id  INTEGER PRIMARY KEY REFERENCES invoices(id),
    printed_at  TEXT NOT NULL,
    copies      INTEGER NOT NULL DEFAULT 0
);

-- The till's settings of a shop: the layout of its scale's EAN-13 codes (prefixes 20-29: the
-- item's code, then its weight in grams or its price) and the line discount a cashier may give.
CREATE TABLE IF NOT EXISTS till_settings (
    company_id            INTEGER PRIMARY KEY REFERENCES companies(id),
    scale_prefixes        TEXT NOT NULL,
    scale_item_digits     INTEGER NOT NULL,
    scale_value           TEXT NOT NULL CHECK (scale_value IN ('weight', 'price')),
    cashier_max_discount  TEXT NOT NULL,
    updated_at            TEXT NOT NULL
);
