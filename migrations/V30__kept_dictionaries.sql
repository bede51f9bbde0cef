-- Issue 34: a queue entry's kept request (format 3, src/store/kept.rs) is compressed with a
-- dictionary of its shop's own: one whole earlier request of the company (its seller, codes and
-- items), kept here once and named by the entry's head. A row is never changed or deleted: every
-- entry written with it reads back through it. A new one is kept when the seller's details change.
-- A new table only: a start does no work over the existing entries, which stay as they are.
CREATE TABLE IF NOT EXISTS kept_dictionaries (
    id          INTEGER PRIMARY KEY,
    company_id  INTEGER NOT NULL REFERENCES companies(id),
    operation   TEXT NOT NULL,
    dictionary  BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS kept_dictionaries_newest ON kept_dictionaries(company_id, operation, id);
