-- The audit trail (issue 28): every action that moves money or changes who may do what, written
-- in the same transaction as the action (`store::audit::append`). One hash chain for the whole
-- database, in id order: each entry's `hash` is the SHA-256 of the previous entry's hash and its
-- own fields (`domain::audit::hash`), the first one's `prev_hash` is 64 zeros.
--
-- AUTOINCREMENT so that `sqlite_sequence` remembers the last id ever given: entries cut off the
-- end of the chain are seen missing by `arka audit verify`, which a chain alone cannot see.
CREATE TABLE audit (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    at          TEXT NOT NULL,
    -- Null for what concerns the whole database (a restore).
    company_id  INTEGER,
    -- Null when the command line did it (`arka restore`, `arka queue resend`): `role` says `cli`.
    user_id     INTEGER,
    role        TEXT NOT NULL,
    request_id  TEXT,
    action      TEXT NOT NULL,
    object      TEXT NOT NULL,
    before      TEXT,
    after       TEXT,
    prev_hash   TEXT NOT NULL,
    hash        TEXT NOT NULL
);

CREATE INDEX audit_company_at ON audit(company_id, at);

-- Append-only to the application: a change or a removal is refused by SQLite itself. Someone
-- who drops these with the sqlite3 tool is what the hash chain catches.
CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
BEGIN
    SELECT RAISE(ABORT, 'the audit trail is append-only');
END;

CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
BEGIN
    SELECT RAISE(ABORT, 'the audit trail is append-only');
END;
