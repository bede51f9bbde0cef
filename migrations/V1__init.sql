-- Foundation: who may call (partners, applications, users), the companies they act for,
-- their business units, certificates and bank accounts.
-- Times are UTC, ISO 8601 text. Secrets (tokens, application secrets) are stored only as SHA-256 hex.

CREATE TABLE partners (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    token_hash  TEXT NOT NULL UNIQUE,
    created_at  TEXT NOT NULL
);

CREATE TABLE apps (
    id           INTEGER PRIMARY KEY,
    name         TEXT NOT NULL,
    client_id    TEXT NOT NULL UNIQUE,
    secret_hash  TEXT NOT NULL,
    created_at   TEXT NOT NULL
);

CREATE TABLE companies (
    id                             INTEGER PRIMARY KEY,
    nuis                           TEXT NOT NULL,
    name                           TEXT NOT NULL,
    address                        TEXT,
    city                           TEXT,
    administrator                  TEXT,
    phone                          TEXT,
    email                          TEXT,
    issuer_in_vat                  INTEGER NOT NULL DEFAULT 1,
    last_noncash_einvoice_number   INTEGER NOT NULL DEFAULT 0,
    is_sandbox                     INTEGER NOT NULL DEFAULT 0,
    partner_id                     INTEGER REFERENCES partners(id),
    created_at                     TEXT NOT NULL
);
CREATE INDEX companies_nuis ON companies(nuis);

CREATE TABLE business_units (
    id                   INTEGER PRIMARY KEY,
    company_id           INTEGER NOT NULL REFERENCES companies(id),
    name                 TEXT NOT NULL,
    business_unit_code   TEXT,
    administrator        TEXT,
    address              TEXT,
    city                 TEXT,
    created_at           TEXT NOT NULL,
    updated_at           TEXT NOT NULL
);
CREATE INDEX business_units_company ON business_units(company_id);

CREATE TABLE users (
    id                 INTEGER PRIMARY KEY,
    company_id         INTEGER NOT NULL REFERENCES companies(id),
    business_unit_id   INTEGER REFERENCES business_units(id),
    name               TEXT NOT NULL,
    email              TEXT NOT NULL UNIQUE COLLATE NOCASE,
    operator_code      TEXT,
    tcr_code           TEXT,
    token_hash         TEXT NOT NULL UNIQUE,
    created_at         TEXT NOT NULL,
    updated_at         TEXT NOT NULL
);
CREATE INDEX users_company ON users(company_id);

-- The private key is AES-256-GCM encrypted with the key file in the data directory.
CREATE TABLE certificates (
    id           INTEGER PRIMARY KEY,
    company_id   INTEGER NOT NULL REFERENCES companies(id),
    subject      TEXT NOT NULL,
    serial       TEXT NOT NULL,
    valid_from   TEXT NOT NULL,
    valid_to     TEXT NOT NULL,
    cert_der     BLOB NOT NULL,
    key_sealed   BLOB NOT NULL,
    created_at   TEXT NOT NULL
);
CREATE INDEX certificates_company ON certificates(company_id, id);

CREATE TABLE bank_accounts (
    id           INTEGER PRIMARY KEY,
    company_id   INTEGER NOT NULL REFERENCES companies(id),
    name         TEXT NOT NULL,
    holder       TEXT NOT NULL,
    iban         TEXT NOT NULL,
    swift        TEXT,
    currency     TEXT NOT NULL,
    notes        TEXT,
    created_at   TEXT NOT NULL
);
CREATE INDEX bank_accounts_company ON bank_accounts(company_id, id);
