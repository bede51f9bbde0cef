-- Warehouse transfer notes (WTN) with their lines; the stock of inventory articles per business
-- unit with every movement kept (who, when, why); a company's stock and print settings.
-- Times are UTC, ISO 8601 text; issue_date is the local (Tirane) date, for filters. Amounts and
-- quantities are exact decimal TEXT.

-- A note is numbered in its business unit's sequence of the year: number = ord_num/year, the
-- CIS's WTNNum. internal_id is optional in v1, so only the notes that carry one are unique by it.
-- transaction_type holds the CIS's Transaction (TRANSFER, EXAMINATION, SALES, DOOR).
-- Origin and destination times are what the CIS saw, stored as UTC.
CREATE TABLE wtns (
    id                       INTEGER PRIMARY KEY,
    company_id               INTEGER NOT NULL REFERENCES companies(id),
    business_unit_id         INTEGER NOT NULL REFERENCES business_units(id),
    user_id                  INTEGER REFERENCES users(id),
    internal_id              TEXT,
    year                     INTEGER NOT NULL,
    api_version              INTEGER NOT NULL,
    ord_num                  INTEGER NOT NULL,
    number                   TEXT NOT NULL,
    issued_at                TEXT NOT NULL,
    issue_date               TEXT NOT NULL,
    issue_date_time          TEXT NOT NULL,
    operator_code            TEXT NOT NULL,
    business_unit_code       TEXT NOT NULL,
    device_code              TEXT,
    wtn_type                 TEXT NOT NULL,
    transaction_type         TEXT NOT NULL,
    carrier_name             TEXT,
    carrier_id_type          TEXT,
    carrier_id_num           TEXT,
    carrier_town             TEXT,
    carrier_address          TEXT,
    vehicle_ownership        TEXT NOT NULL,
    vehicle_plates           TEXT NOT NULL,
    origin_point             TEXT NOT NULL,
    origin_city              TEXT NOT NULL,
    origin_address           TEXT NOT NULL,
    origin_date_time         TEXT NOT NULL,
    destination_point        TEXT NOT NULL,
    destination_city         TEXT NOT NULL,
    destination_address      TEXT NOT NULL,
    destination_date_time    TEXT NOT NULL,
    destination_unit_id      INTEGER REFERENCES business_units(id),
    goods_flammable          INTEGER NOT NULL,
    escort_required          INTEGER NOT NULL,
    pack_type                TEXT,
    pack_num                 INTEGER,
    value_of_goods           TEXT NOT NULL,
    items_num                TEXT NOT NULL,
    wtnic                    TEXT NOT NULL,
    wtnic_signature          TEXT NOT NULL,
    header_uuid              TEXT NOT NULL,
    fwtnic                   TEXT,
    verify_url               TEXT NOT NULL,
    created_at               TEXT NOT NULL
);
CREATE UNIQUE INDEX wtns_internal_id ON wtns(company_id, year, internal_id) WHERE internal_id IS NOT NULL;
CREATE UNIQUE INDEX wtns_number ON wtns(company_id, business_unit_id, year, ord_num);
CREATE UNIQUE INDEX wtns_wtnic ON wtns(wtnic);
CREATE INDEX wtns_company_id ON wtns(company_id, id);
CREATE INDEX wtns_company_date ON wtns(company_id, issue_date, id);

CREATE TABLE wtn_lines (
    id         INTEGER PRIMARY KEY,
    wtn_id     INTEGER NOT NULL REFERENCES wtns(id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    name       TEXT NOT NULL,
    code       TEXT,
    unit       TEXT NOT NULL,
    quantity   TEXT NOT NULL,
    price      TEXT
);
CREATE INDEX wtn_lines_wtn ON wtn_lines(wtn_id, position);

-- What is on the shelf of a unit; an article never counted or moved there has no row (0).
CREATE TABLE stock_levels (
    company_id         INTEGER NOT NULL REFERENCES companies(id),
    business_unit_id   INTEGER NOT NULL REFERENCES business_units(id),
    product_id         INTEGER NOT NULL REFERENCES products(id),
    quantity           TEXT NOT NULL,
    updated_at         TEXT NOT NULL,
    PRIMARY KEY (business_unit_id, product_id)
);
CREATE INDEX stock_levels_product ON stock_levels(product_id);

-- reason: sale, cancellation, wtn_out, wtn_in, count, delivery, correction. change is signed;
-- quantity_after is the unit's level right after it. document_kind (invoice, wtn) and
-- document_id name the document that moved the goods; an owner's count, delivery or correction
-- has none and may carry a note.
CREATE TABLE stock_movements (
    id                 INTEGER PRIMARY KEY,
    company_id         INTEGER NOT NULL REFERENCES companies(id),
    business_unit_id   INTEGER NOT NULL REFERENCES business_units(id),
    product_id         INTEGER NOT NULL REFERENCES products(id),
    reason             TEXT NOT NULL,
    change             TEXT NOT NULL,
    quantity_after     TEXT NOT NULL,
    note               TEXT,
    document_kind      TEXT,
    document_id        INTEGER,
    user_id            INTEGER REFERENCES users(id),
    created_at         TEXT NOT NULL
);
CREATE INDEX stock_movements_product ON stock_movements(product_id, business_unit_id, id);
CREATE INDEX stock_movements_document ON stock_movements(document_kind, document_id);

-- A company without a row keeps stock (enabled) and lets it go negative (enforce off).
CREATE TABLE stock_settings (
    company_id   INTEGER PRIMARY KEY REFERENCES companies(id),
    enabled      INTEGER NOT NULL,
    enforce      INTEGER NOT NULL,
    updated_by   INTEGER REFERENCES users(id),
    updated_at   TEXT NOT NULL
);

-- What printed documents show of the company: its logo (PNG or JPEG bytes) and whether the
-- issuing unit's name stands in for the company's.
CREATE TABLE print_settings (
    company_id      INTEGER PRIMARY KEY REFERENCES companies(id),
    logo            BLOB,
    logo_type       TEXT,
    unit_name       INTEGER NOT NULL,
    updated_at      TEXT NOT NULL
);
