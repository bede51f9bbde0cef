-- A chain's non-cash numbering: the business's non-cash (and e-invoice) sequence is one per NUIS
-- and year, however many shops issue under it, so it lives here (src/hq/numbering.rs).

CREATE TABLE noncash_sequences (
    nuis  TEXT NOT NULL,
    year  INTEGER NOT NULL,
    last  BIGINT NOT NULL,
    PRIMARY KEY (nuis, year)
);

-- Each number handed out, to the shop and document (its held-number key) it went to; a number
-- given back (the document was not written) has neither, and is the next one handed out.
CREATE TABLE noncash_numbers (
    nuis         TEXT NOT NULL,
    year         INTEGER NOT NULL,
    ord_num      BIGINT NOT NULL,
    shop_id      BIGINT REFERENCES shops(id),
    held_for     TEXT,
    reserved_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (nuis, year, ord_num),
    UNIQUE (nuis, year, shop_id, held_for)
);
CREATE INDEX noncash_numbers_free ON noncash_numbers (nuis, year, ord_num) WHERE shop_id IS NULL;
