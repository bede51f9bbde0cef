-- The catalog: a company's clients (one model behind the v1 flat and v2 structured views),
-- product categories and products. Times are UTC, ISO 8601 text. Money is Decimal text.

-- client_type: company | person. Enumerations are stored lowercase (the v2 spelling); v1
-- shows them uppercase. id_type is always set (nuis for a company, id for a person when the
-- caller sent none); id_value is NULL when no identifier was recorded.
-- search_text: the searchable fields lowercased with Unicode rules in Rust, because SQLite's
-- LIKE folds only ASCII case and Albanian names carry ë and ç.
CREATE TABLE clients (
    id                 INTEGER PRIMARY KEY,
    company_id         INTEGER NOT NULL REFERENCES companies(id),
    client_type        TEXT NOT NULL,
    company_name       TEXT,
    company_category   TEXT,
    first_name         TEXT,
    last_name          TEXT,
    birthday           TEXT,
    id_type            TEXT NOT NULL,
    id_value           TEXT,
    address            TEXT,
    city               TEXT,
    country            TEXT,
    phone              TEXT,
    email              TEXT,
    customer_number    TEXT,
    nationality_code   TEXT,
    nationality_id     INTEGER,
    gender             TEXT,
    verified           INTEGER NOT NULL DEFAULT 0,
    search_text        TEXT NOT NULL,
    created_at         TEXT NOT NULL,
    updated_at         TEXT NOT NULL
);
CREATE INDEX clients_company ON clients(company_id, id);
-- One client per identifier (type and value) in a company; clients without a value may repeat.
CREATE UNIQUE INDEX clients_identifier ON clients(company_id, id_type, id_value COLLATE NOCASE)
    WHERE id_value IS NOT NULL;

CREATE TABLE product_categories (
    id           INTEGER PRIMARY KEY,
    company_id   INTEGER NOT NULL REFERENCES companies(id),
    name         TEXT NOT NULL,
    color        TEXT,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);
CREATE INDEX product_categories_company ON product_categories(company_id, id);
CREATE UNIQUE INDEX product_categories_name ON product_categories(company_id, name COLLATE NOCASE);

-- vat_rate: "0", "6", "10" or "20". service: 1 for a service, 0 for an inventory article.
-- Invoices copy what they need of a product onto their own lines, so changing a product
-- never changes an issued document.
CREATE TABLE products (
    id                INTEGER PRIMARY KEY,
    company_id        INTEGER NOT NULL REFERENCES companies(id),
    code              TEXT NOT NULL,
    name              TEXT NOT NULL,
    description       TEXT NOT NULL,
    last_price        TEXT NOT NULL,
    cost_price        TEXT,
    vat_rate          TEXT NOT NULL,
    currency          TEXT NOT NULL,
    service           INTEGER NOT NULL,
    unit_code         TEXT NOT NULL,
    category_id       INTEGER REFERENCES product_categories(id),
    vat_exempt_type   TEXT,
    created_at        TEXT NOT NULL,
    updated_at        TEXT NOT NULL
);
CREATE INDEX products_company ON products(company_id, id);
CREATE UNIQUE INDEX products_code ON products(company_id, code);
CREATE INDEX products_category ON products(category_id);
