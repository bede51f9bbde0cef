-- The TCR as the shop's cash register: every lek in or out of the drawer (cash_actions, each
-- registered with the CIS as a RegisterCashDepositRequest) and the TCR's business days
-- (cash_days). Amounts are decimal TEXT in lek. Times: transacted_at is UTC (RFC 3339);
-- business_day is the Europe/Tirane date.

-- action_type: INITIAL (the day's opening), MONEY_IN (CIS DEPOSIT), MONEY_OUT (CIS WITHDRAW).
-- purpose: open (INITIAL, or the DEPOSIT of the difference when open-balance comes after the day
-- was opened), deposit, withdraw, close (the withdrawal registered by close-balance).
-- fiscal_status: FISCALIZED (fiscal_fic holds the FCDC), PENDING (waiting in fiscal_queue),
-- REJECTED (the CIS refused the late delivery; kept, the money did move).
CREATE TABLE cash_actions (
    id                INTEGER PRIMARY KEY,
    company_id        INTEGER NOT NULL REFERENCES companies(id),
    tcr_code          TEXT NOT NULL,
    user_id           INTEGER REFERENCES users(id),
    cash_day_id       INTEGER REFERENCES cash_days(id),
    action_type       TEXT NOT NULL,
    operation         TEXT NOT NULL,
    purpose           TEXT NOT NULL,
    automatic         INTEGER NOT NULL DEFAULT 0,
    amount            TEXT NOT NULL,
    currency          TEXT NOT NULL DEFAULT 'ALL',
    transacted_at     TEXT NOT NULL,
    business_day      TEXT NOT NULL,
    year              INTEGER NOT NULL,
    transaction_no    INTEGER NOT NULL,
    cash_action_no    TEXT NOT NULL,
    description       TEXT,
    third_party       TEXT,
    client_id         INTEGER,
    fiscal_status     TEXT NOT NULL,
    fiscal_uuid       TEXT NOT NULL UNIQUE,
    fiscal_fic        TEXT,
    created_at        TEXT NOT NULL
);
CREATE UNIQUE INDEX cash_actions_number ON cash_actions(company_id, tcr_code, year, transaction_no);
CREATE INDEX cash_actions_tcr_id ON cash_actions(company_id, tcr_code, id);
CREATE INDEX cash_actions_tcr_time ON cash_actions(company_id, tcr_code, transacted_at);
CREATE INDEX cash_actions_day ON cash_actions(cash_day_id, id);

-- One business day of a TCR, from its opening until close-balance. Only the TCR's latest day can
-- be open for business: a cash invoice or open-balance on a later date opens a new day.
CREATE TABLE cash_days (
    id                    INTEGER PRIMARY KEY,
    company_id            INTEGER NOT NULL REFERENCES companies(id),
    tcr_code              TEXT NOT NULL,
    business_day          TEXT NOT NULL,
    opened_at             TEXT NOT NULL,
    opened_automatically  INTEGER NOT NULL DEFAULT 0,
    closed_at             TEXT,
    counted               TEXT,
    expected              TEXT,
    created_at            TEXT NOT NULL
);
CREATE INDEX cash_days_tcr ON cash_days(company_id, tcr_code, id);

-- The balance sums a TCR's cash invoices up to a time.
CREATE INDEX invoices_cash_register ON invoices(company_id, tcr_code, kind, issued_at);
