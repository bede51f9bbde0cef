-- Fiscal devices (TCRs) registered with the CIS, and the durable queue of documents waiting
-- for the CIS (subsequent delivery).

CREATE TABLE fiscal_devices (
    id                   INTEGER PRIMARY KEY,
    company_id           INTEGER NOT NULL REFERENCES companies(id),
    business_unit_id     INTEGER NOT NULL REFERENCES business_units(id),
    name                 TEXT NOT NULL,
    tcr_int_id           TEXT NOT NULL,
    tcr_code             TEXT NOT NULL,
    business_unit_code   TEXT NOT NULL,
    valid_from           TEXT NOT NULL,
    valid_to             TEXT,
    created_at           TEXT NOT NULL
);
CREATE INDEX fiscal_devices_company ON fiscal_devices(company_id, id);
CREATE UNIQUE INDEX fiscal_devices_code ON fiscal_devices(tcr_code);

-- status: waiting (not yet accepted), delivered (accepted, result_code holds FIC/FCDC/FWTNIC),
-- rejected (the CIS refused it: kept with its reason, never retried).
CREATE TABLE fiscal_queue (
    id                  INTEGER PRIMARY KEY,
    company_id          INTEGER NOT NULL REFERENCES companies(id),
    operation           TEXT NOT NULL,
    document_kind       TEXT NOT NULL,
    document_id         INTEGER,
    document_number     TEXT,
    tcr_code            TEXT,
    header_uuid         TEXT NOT NULL UNIQUE,
    issued_at           TEXT NOT NULL,
    unsigned_request    TEXT NOT NULL,
    subseq_deliv_type   TEXT,
    status              TEXT NOT NULL DEFAULT 'waiting',
    attempts            INTEGER NOT NULL DEFAULT 0,
    next_attempt_at     TEXT NOT NULL,
    last_error          TEXT,
    fault_code          TEXT,
    result_code         TEXT,
    created_at          TEXT NOT NULL,
    delivered_at        TEXT
);
CREATE INDEX fiscal_queue_waiting ON fiscal_queue(status, id);
CREATE INDEX fiscal_queue_document ON fiscal_queue(document_kind, document_id);
