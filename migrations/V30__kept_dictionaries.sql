-- Issue 34: a queue entry's kept request (format 3, src/store/kept.rs) is compressed with a
-- dictionary of its shop's own: one whole earlier request of the company with the same seller (its
-- `<Seller …>` tag: the company's name and NUIS, its unit's address), kept here once and named by
-- the entry's head. A row is never changed or deleted: every entry written with it reads back
-- through it. A new table only: a start does no work over the existing entries, which keep their
-- format.
CREATE TABLE IF NOT EXISTS kept_dictionaries (
    id          INTEGER PRIMARY KEY,
    company_id  INTEGER NOT NULL REFERENCES companies(id),
    operation   TEXT NOT NULL,
    seller      TEXT NOT NULL,
    dictionary  BLOB NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS kept_dictionaries_seller ON kept_dictionaries(company_id, operation, seller);
