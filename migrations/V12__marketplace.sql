-- The delivery marketplace (Wolt): the company add-on, the marketplace right of a user's token,
-- the venue with its sealed API credentials, the orders Wolt sends with their lines, the event
-- feed, the webhook notifications already taken, and the Idempotency-Key store of the writes.
-- Times are UTC, ISO 8601 text; amounts are exact decimal TEXT in major units (lek, not qindarka).
-- invoice_id and product_id carry no foreign key: the invoice and catalog rooms keep their own
-- rules for removing rows, and a read joins them leniently.

CREATE TABLE marketplace_addons (
    company_id   INTEGER PRIMARY KEY REFERENCES companies(id),
    enabled      INTEGER NOT NULL,
    updated_at   TEXT NOT NULL
);

CREATE TABLE marketplace_rights (
    user_id      INTEGER PRIMARY KEY REFERENCES users(id),
    granted_at   TEXT NOT NULL
);

-- The API key and the webhook secret are AES-256-GCM sealed with the key file, like certificate keys.
CREATE TABLE marketplace_venues (
    id                      INTEGER PRIMARY KEY,
    company_id              INTEGER NOT NULL REFERENCES companies(id),
    wolt_venue_id           TEXT NOT NULL UNIQUE,
    name                    TEXT NOT NULL,
    api_key_sealed          BLOB NOT NULL,
    webhook_secret_sealed   BLOB NOT NULL,
    active                  INTEGER NOT NULL,
    created_at              TEXT NOT NULL,
    updated_at              TEXT NOT NULL
);
CREATE INDEX marketplace_venues_company ON marketplace_venues(company_id, active);

CREATE TABLE marketplace_orders (
    id                         INTEGER PRIMARY KEY,
    company_id                 INTEGER NOT NULL REFERENCES companies(id),
    venue_id                   INTEGER NOT NULL REFERENCES marketplace_venues(id),
    wolt_order_id              TEXT NOT NULL,
    order_number               TEXT,
    delivery_type              TEXT NOT NULL,
    status                     TEXT NOT NULL,
    preorder_time              TEXT,
    preorder_status            TEXT,
    customer_name              TEXT,
    customer_phone             TEXT,
    customer_note              TEXT,
    company_tax_id             TEXT,
    company_name               TEXT,
    company_address            TEXT,
    company_city               TEXT,
    currency                   TEXT NOT NULL,
    subtotal_before_discount   TEXT NOT NULL,
    line_discount              TEXT NOT NULL,
    campaign_discount          TEXT NOT NULL,
    delivery_fee               TEXT NOT NULL,
    total                      TEXT NOT NULL,
    campaigns                  TEXT NOT NULL,
    cash_payment               INTEGER NOT NULL,
    preparation_time           INTEGER,
    reject_reason              TEXT,
    invoice_id                 INTEGER,
    wolt_created_at            TEXT,
    received_at                TEXT NOT NULL,
    received_date              TEXT NOT NULL,
    updated_at                 TEXT NOT NULL,
    UNIQUE (venue_id, wolt_order_id)
);
CREATE INDEX marketplace_orders_status ON marketplace_orders(company_id, status, id);
CREATE INDEX marketplace_orders_date ON marketplace_orders(company_id, received_date, id);

CREATE TABLE marketplace_order_lines (
    id           INTEGER PRIMARY KEY,
    order_id     INTEGER NOT NULL REFERENCES marketplace_orders(id),
    position     INTEGER NOT NULL,
    name         TEXT NOT NULL,
    code         TEXT,
    quantity     TEXT NOT NULL,
    unit_price   TEXT NOT NULL,
    discount     TEXT NOT NULL,
    total        TEXT NOT NULL,
    vat_rate     TEXT,
    product_id   INTEGER,
    options      TEXT NOT NULL
);
CREATE INDEX marketplace_order_lines_order ON marketplace_order_lines(order_id, position);

CREATE TABLE marketplace_events (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id   INTEGER NOT NULL REFERENCES companies(id),
    order_id     INTEGER NOT NULL REFERENCES marketplace_orders(id),
    kind         TEXT NOT NULL,
    status       TEXT NOT NULL,
    source       TEXT NOT NULL,
    created_at   TEXT NOT NULL
);
CREATE INDEX marketplace_events_company ON marketplace_events(company_id, id);

CREATE TABLE marketplace_webhooks (
    notification_id   TEXT NOT NULL,
    venue_id          INTEGER NOT NULL REFERENCES marketplace_venues(id),
    order_id          INTEGER NOT NULL REFERENCES marketplace_orders(id),
    received_at       TEXT NOT NULL,
    PRIMARY KEY (venue_id, notification_id)
);

-- state: in_flight (run_id names the process working on it), retry (the last try did not
-- finish: Wolt did not answer, or the process stopped), done (status and body are the answer).
CREATE TABLE marketplace_idempotency (
    user_id        INTEGER NOT NULL REFERENCES users(id),
    key            TEXT NOT NULL,
    fingerprint    TEXT NOT NULL,
    state          TEXT NOT NULL,
    run_id         TEXT,
    status         INTEGER,
    body           TEXT,
    created_at     TEXT NOT NULL,
    PRIMARY KEY (user_id, key)
);
CREATE INDEX marketplace_idempotency_created ON marketplace_idempotency(created_at);
