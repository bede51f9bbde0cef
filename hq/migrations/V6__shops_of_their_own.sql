-- Issue 43: the head office safe under a chain's mistakes. A shop belongs to one business (its
-- NUIS, declared when it is added), ships from one box at a time (the box's identity, claimed by
-- its first call; another box on the same token is refused and kept here for the owner), can have
-- its token rotated or revoked and be retired, and says it is alive by a heartbeat. What the
-- chain's people do to shops, owners and numbers is kept in the HQ's own audit trail.

ALTER TABLE shops
    -- The business the shop sells for: its numbers and its catalog are that NUIS's, never the
    -- body's of a request. Known from `arka hq shops add --nuis`, or (a shop added before) from
    -- the company it shipped.
    ADD COLUMN nuis           TEXT,
    -- The box that ships for the shop; none until its first call claims it.
    ADD COLUMN box_id         TEXT,
    ADD COLUMN box_since      TIMESTAMPTZ,
    -- A revoked token answers 401; rotating gives a new one.
    ADD COLUMN revoked_at     TIMESTAMPTZ,
    -- A shop closed for good: its token revoked, its books kept.
    ADD COLUMN retired_at     TIMESTAMPTZ,
    -- The last heartbeat, and what the shop said in it (its backlog, its CIS queue).
    ADD COLUMN last_heard_at  TIMESTAMPTZ,
    ADD COLUMN heartbeat      JSONB;

UPDATE shops s SET nuis = (
    SELECT r.row->>'nuis' FROM shop_rows r WHERE r.shop_id = s.id AND r.tbl = 'companies'
    ORDER BY (r.row->>'id')::bigint LIMIT 1);

-- A box refused for a shop: a second box on its token, or the box a restore replaced, calling
-- again. One row per box, with how often and when it called, for the owner to see.
CREATE TABLE box_refusals (
    shop_id    BIGINT NOT NULL REFERENCES shops(id),
    box_id     TEXT NOT NULL,
    reason     TEXT NOT NULL,
    first_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    calls      BIGINT NOT NULL DEFAULT 1,
    address    TEXT,
    PRIMARY KEY (shop_id, box_id)
);

-- What the chain's people did: shops added, rotated, revoked, retired, removed; owners added and
-- removed; a box replaced by a restore; a held number given back or voided.
CREATE TABLE hq_audit (
    id      BIGSERIAL PRIMARY KEY,
    at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    actor   TEXT NOT NULL,
    action  TEXT NOT NULL,
    object  TEXT NOT NULL,
    detail  JSONB
);

-- A non-cash number is reserved by one box of the shop: the box a restore replaced keeps its
-- reservations, which the box after it never takes over (the dead box may have issued them).
-- A reservation not turned into a document is resolved by the owner: given back (the number is
-- free again) or voided (a gap, listed).
ALTER TABLE noncash_numbers
    ADD COLUMN box_id       TEXT,
    ADD COLUMN voided_at    TIMESTAMPTZ,
    ADD COLUMN void_reason  TEXT;
ALTER TABLE noncash_numbers DROP CONSTRAINT noncash_numbers_nuis_year_shop_id_held_for_key;
CREATE UNIQUE INDEX noncash_numbers_held_for ON noncash_numbers (nuis, year, shop_id, held_for, COALESCE(box_id, ''));

-- A central product the owner withdrew: the shops keep it as their own, no longer set here.
ALTER TABLE central_products ADD COLUMN withdrawn_at TIMESTAMPTZ;
