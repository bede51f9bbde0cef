-- Several documents of one sequence are at the CIS at once, so one given up on its first call (the
-- CIS refused it while its POS was still waiting, or a kind that is not kept was not delivered)
-- may already have later numbers after it. Its number is not given to another document: it is
-- held for the same document's retry (`held_for`, its in-flight key: company, year and internalId
-- for an invoice), which is issued under it. Until then the owner sees it through its queue entry
-- (status 'held', with the CIS's reason). Issued numbers and held ones together have no gap.
CREATE TABLE held_numbers (
    id          INTEGER PRIMARY KEY,
    company_id  INTEGER NOT NULL REFERENCES companies(id),
    sequence    TEXT NOT NULL,
    year        INTEGER NOT NULL,
    ord_num     INTEGER NOT NULL,
    held_for    TEXT NOT NULL,
    queue_id    INTEGER NOT NULL REFERENCES fiscal_queue(id),
    created_at  TEXT NOT NULL
);
CREATE UNIQUE INDEX held_numbers_number ON held_numbers(company_id, sequence, year, ord_num);
CREATE UNIQUE INDEX held_numbers_held_for ON held_numbers(company_id, held_for, sequence, year);
