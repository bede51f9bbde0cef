-- Issue 43: a box brought back from a copy (the chain's head office, or an off-box backup) cannot
-- prove that the numbers after the copy's last were never used: the dead box may have issued
-- them, and the CIS holds them. So every TCR of the restored database is retired (it issues no
-- more) and the shop goes on on a new TCR registered at the CIS for each (continued_by), its
-- users moved to it (services::devices::continue_on_new_tcrs). What the CIS lists that the books
-- lack (e-invoices, the only documents the CIS lets a seller list) is kept for the owner.

ALTER TABLE fiscal_devices ADD COLUMN retired_at TEXT;
ALTER TABLE fiscal_devices ADD COLUMN retired_why TEXT;
ALTER TABLE fiscal_devices ADD COLUMN continued_by TEXT;

CREATE TABLE cis_only_einvoices (
    company_id  INTEGER NOT NULL REFERENCES companies(id),
    eic         TEXT NOT NULL,
    doc_number  TEXT,
    amount      TEXT,
    received_at TEXT,
    found_at    TEXT NOT NULL,
    PRIMARY KEY (company_id, eic)
);
