-- Issue 43: a shop in a chain has a box identity of its own, which every call to its head office
-- names (the HQ hears one box per shop: a second box on the same token, or the box a restore
-- replaced, is refused). A change the head office cannot take (a row its typed tables refuse) is
-- set aside here, kept with the HQ's reason, so what follows it flows; it is counted on /healthz
-- and shown to the owner. Once linked, the link stays until `arka unlink-hq` (audited) removes it:
-- a shop started without its head office refuses non-cash documents meanwhile.

ALTER TABLE hq_link ADD COLUMN box_id TEXT;
UPDATE hq_link SET box_id = lower(hex(randomblob(16)));

CREATE TABLE hq_set_aside (
    seq           INTEGER PRIMARY KEY,
    tbl           TEXT NOT NULL,
    key           TEXT NOT NULL,
    op            TEXT NOT NULL,
    -- The row as it was shipped, when it was an upsert.
    row           TEXT,
    reason        TEXT NOT NULL,
    set_aside_at  TEXT NOT NULL
);
