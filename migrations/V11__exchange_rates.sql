-- Exchange rates and the currencies a company invoices in (issue 18).

-- Rates read from the sources' public pages, one row per source, currency and the day the source
-- quoted it; a page read again the same day rewrites its rows. Never deleted: the history is the
-- accountant's evidence of the rate in force.
CREATE TABLE exchange_rates (
    source      TEXT NOT NULL,      -- BOA, BKT, Iliria98, ADON
    currency    TEXT NOT NULL,      -- ISO 4217 as the page writes it
    rate_date   TEXT NOT NULL,      -- YYYY-MM-DD the quote is for
    unit        INTEGER NOT NULL,   -- units of the currency quoted (100 for the yen at the central bank)
    sell        TEXT NOT NULL,      -- lek for `unit` units, exact decimal
    buy         TEXT,               -- lek for `unit` units, when the source quotes one
    fetched_at  TEXT NOT NULL,      -- UTC, RFC 3339
    PRIMARY KEY (source, currency, rate_date)
);
CREATE INDEX exchange_rates_fetched ON exchange_rates(source, fetched_at);

-- The owner's own rate for a day; it wins over every fetched rate of that day.
CREATE TABLE manual_exchange_rates (
    company_id  INTEGER NOT NULL REFERENCES companies(id),
    currency    TEXT NOT NULL,
    rate_date   TEXT NOT NULL,
    unit        INTEGER NOT NULL,
    rate        TEXT NOT NULL,      -- lek for `unit` units
    user_id     INTEGER REFERENCES users(id),
    updated_at  TEXT NOT NULL,
    PRIMARY KEY (company_id, currency, rate_date)
);

-- What the owner changed from the defaults (EUR, USD, GBP, CHF enabled; ALL always).
CREATE TABLE company_currencies (
    company_id  INTEGER NOT NULL REFERENCES companies(id),
    currency    TEXT NOT NULL,
    enabled     INTEGER NOT NULL,
    updated_at  TEXT NOT NULL,
    PRIMARY KEY (company_id, currency)
);

-- Where an invoice's exchange rate came from (REQUEST, BOA, MANUAL) and the day it was quoted for;
-- NULL on invoices in lek and on those issued before this migration.
ALTER TABLE invoices ADD COLUMN exchange_rate_source TEXT;
ALTER TABLE invoices ADD COLUMN exchange_rate_date TEXT;
