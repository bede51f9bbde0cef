-- The head office (HQ) on PostgreSQL: every shop's rows as the shop shipped them (the truth a
-- restore reads back), and typed tables derived from them in the same transaction for the
-- reports and the invoice list. Shop ids here are the HQ's; every other id is the shop's own.

CREATE TABLE shops (
    id          BIGSERIAL PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    token_hash  TEXT NOT NULL UNIQUE,
    -- The highest outbox sequence of the shop applied here: an entry at or below it is skipped.
    acked_seq   BIGINT NOT NULL DEFAULT 0,
    synced_at   TIMESTAMPTZ,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- The chain's owners: their tokens read every shop's reports and documents.
CREATE TABLE owners (
    id          BIGSERIAL PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    token_hash  TEXT NOT NULL UNIQUE,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- One row per shop, table and key (the shop's primary key as a JSON object): the row's last
-- state, and the outbox sequence that brought it.
CREATE TABLE shop_rows (
    shop_id  BIGINT NOT NULL REFERENCES shops(id),
    tbl      TEXT NOT NULL,
    key      TEXT NOT NULL,
    row      JSONB NOT NULL,
    seq      BIGINT NOT NULL,
    PRIMARY KEY (shop_id, tbl, key)
);

-- The shop's report_sales rows (amounts in cents), so a report here is the sum of the shops' own.
CREATE TABLE report_sales (
    shop_id           BIGINT NOT NULL,
    company_id        BIGINT NOT NULL,
    day               TEXT NOT NULL,
    business_unit_id  BIGINT NOT NULL,
    tcr_code          TEXT NOT NULL,
    user_id           BIGINT NOT NULL,
    operator_code     TEXT NOT NULL,
    kind              TEXT NOT NULL,
    currency          TEXT NOT NULL,
    documents         BIGINT NOT NULL,
    net               BIGINT NOT NULL,
    vat               BIGINT NOT NULL,
    gross             BIGINT NOT NULL,
    discount          BIGINT NOT NULL,
    fee               BIGINT NOT NULL,
    net_currency      BIGINT NOT NULL,
    vat_currency      BIGINT NOT NULL,
    gross_currency    BIGINT NOT NULL,
    till              BIGINT NOT NULL,
    PRIMARY KEY (shop_id, company_id, day, business_unit_id, tcr_code, user_id, operator_code, kind, currency)
);
CREATE INDEX report_sales_day ON report_sales (day, shop_id);

-- The shop's report_vat rows (amounts in cents), so a report here is the sum of the shops' own.
CREATE TABLE report_vat (
    shop_id           BIGINT NOT NULL,
    company_id        BIGINT NOT NULL,
    day               TEXT NOT NULL,
    business_unit_id  BIGINT NOT NULL,
    tcr_code          TEXT NOT NULL,
    user_id           BIGINT NOT NULL,
    operator_code     TEXT NOT NULL,
    kind              TEXT NOT NULL,
    vat_rate          TEXT NOT NULL,
    exemption         TEXT NOT NULL,
    documents         BIGINT NOT NULL,
    lines             BIGINT NOT NULL,
    net               BIGINT NOT NULL,
    vat               BIGINT NOT NULL,
    PRIMARY KEY (shop_id, company_id, day, business_unit_id, tcr_code, user_id, operator_code, kind, vat_rate, exemption)
);
CREATE INDEX report_vat_day ON report_vat (day, shop_id);

-- The shop's report_payments rows (amounts in cents), so a report here is the sum of the shops' own.
CREATE TABLE report_payments (
    shop_id           BIGINT NOT NULL,
    company_id        BIGINT NOT NULL,
    day               TEXT NOT NULL,
    business_unit_id  BIGINT NOT NULL,
    tcr_code          TEXT NOT NULL,
    user_id           BIGINT NOT NULL,
    operator_code     TEXT NOT NULL,
    kind              TEXT NOT NULL,
    payment_method    TEXT NOT NULL,
    documents         BIGINT NOT NULL,
    amount            BIGINT NOT NULL,
    PRIMARY KEY (shop_id, company_id, day, business_unit_id, tcr_code, user_id, operator_code, kind, payment_method)
);
CREATE INDEX report_payments_day ON report_payments (day, shop_id);

-- The shop's report_products rows (amounts in cents), so a report here is the sum of the shops' own.
CREATE TABLE report_products (
    shop_id           BIGINT NOT NULL,
    company_id        BIGINT NOT NULL,
    day               TEXT NOT NULL,
    business_unit_id  BIGINT NOT NULL,
    tcr_code          TEXT NOT NULL,
    product_code      TEXT NOT NULL,
    product_name      TEXT NOT NULL,
    unit              TEXT NOT NULL,
    lines             BIGINT NOT NULL,
    quantity          BIGINT NOT NULL,
    net               BIGINT NOT NULL,
    vat               BIGINT NOT NULL,
    PRIMARY KEY (shop_id, company_id, day, business_unit_id, tcr_code, product_code)
);
CREATE INDEX report_products_day ON report_products (day, shop_id);

-- The shop's report_clients rows (amounts in cents), so a report here is the sum of the shops' own.
CREATE TABLE report_clients (
    shop_id           BIGINT NOT NULL,
    company_id        BIGINT NOT NULL,
    day               TEXT NOT NULL,
    business_unit_id  BIGINT NOT NULL,
    buyer_key         TEXT NOT NULL,
    client_id         BIGINT,
    buyer_name        TEXT NOT NULL,
    buyer_id_type     TEXT,
    buyer_id_value    TEXT,
    documents         BIGINT NOT NULL,
    quantity          BIGINT NOT NULL,
    net               BIGINT NOT NULL,
    vat               BIGINT NOT NULL,
    gross             BIGINT NOT NULL,
    PRIMARY KEY (shop_id, company_id, day, business_unit_id, buyer_key)
);
CREATE INDEX report_clients_day ON report_clients (day, shop_id);

-- What the invoice list, the waiting counts and the open orders read of a shop's documents.
CREATE TABLE invoices (
    shop_id                BIGINT NOT NULL,
    id                     BIGINT NOT NULL,
    company_id             BIGINT NOT NULL,
    business_unit_id       BIGINT,
    user_id                BIGINT,
    internal_id            TEXT NOT NULL,
    year                   BIGINT NOT NULL,
    kind                   TEXT NOT NULL,
    document_kind          TEXT NOT NULL,
    original_invoice_id    BIGINT,
    settled_by_invoice_id  BIGINT,
    reversed_at            TEXT,
    tcr_code               TEXT,
    ord_num                BIGINT NOT NULL,
    number                 TEXT NOT NULL,
    issued_at              TEXT NOT NULL,
    issue_date             TEXT NOT NULL,
    operator_code          TEXT,
    business_unit_code     TEXT,
    currency               TEXT NOT NULL,
    total                  TEXT NOT NULL,
    buyer_name             TEXT,
    iic                    TEXT NOT NULL,
    fic                    TEXT,
    PRIMARY KEY (shop_id, id)
);
CREATE INDEX invoices_day ON invoices (issue_date, shop_id);
CREATE INDEX invoices_waiting ON invoices (issue_date, shop_id) WHERE fic IS NULL;
CREATE INDEX invoices_open_orders ON invoices (issue_date, shop_id)
    WHERE document_kind = 'ORDER' AND settled_by_invoice_id IS NULL AND reversed_at IS NULL;

CREATE TABLE einvoices (
    shop_id     BIGINT NOT NULL,
    invoice_id  BIGINT NOT NULL,
    company_id  BIGINT NOT NULL,
    PRIMARY KEY (shop_id, invoice_id)
);
