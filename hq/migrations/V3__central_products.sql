-- Products and prices set at the head office for a business (NUIS): the shops of that NUIS pull
-- what changed after the last version they hold, and refuse local changes of these products.
CREATE SEQUENCE central_product_versions;

CREATE TABLE central_products (
    nuis         TEXT NOT NULL,
    code         TEXT NOT NULL,
    name         TEXT NOT NULL,
    description  TEXT NOT NULL,
    price        TEXT NOT NULL,
    vat_rate     TEXT NOT NULL,
    currency     TEXT NOT NULL,
    unit_code    TEXT NOT NULL,
    service      BOOLEAN NOT NULL,
    version      BIGINT NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (nuis, code)
);
CREATE INDEX central_products_version ON central_products (nuis, version);
