-- One row that GET /healthz rewrites: a committed write is the only proof that the database
-- (and the disk under it) still takes writes.
CREATE TABLE health_probe (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    checked_at  TEXT NOT NULL
);
