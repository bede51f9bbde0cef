-- Every report and the invoice list read typed, indexed rows, never a scan of the shipped ones
-- (issue 30: any report of a month under 200 ms p99 over 10 shops x 1,000,000 documents). The
-- tills' days and actions, the transfer notes, the users, TCRs and branches are typed from the
-- shipped rows in the batch's own transaction (src/hq/apply.rs), as the invoices are; each table
-- is filled here from the rows an HQ already holds, so an upgraded HQ answers as before.

-- The list's `query` is the shop's LIKE over its search text: a trigram index serves it (the
-- extension ships in Debian's postgresql and is trusted: a database owner may create it).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

ALTER TABLE invoices ADD COLUMN cash_day_id BIGINT, ADD COLUMN self_issue_type TEXT, ADD COLUMN search_text TEXT;
UPDATE invoices i SET cash_day_id = (r.row->>'cash_day_id')::bigint, self_issue_type = r.row->>'self_issue_type',
        search_text = r.row->>'search_text'
    FROM shop_rows r
    WHERE r.shop_id = i.shop_id AND r.tbl = 'invoices' AND r.key = '[' || i.id || ']';

-- Every read of documents by day goes shop by shop (the chain's order puts the shop's name after
-- the day or the time): the list and the sales book stop after the page. A document's issue date
-- is its issue time's day, so a shop's documents by date then time are in time order; the time in
-- bytes' order, which is its order as stored (RFC 3339 in UTC). It replaces the index by day
-- first: one index less for each document a batch brings.
CREATE INDEX invoices_shop_time ON invoices (shop_id, issue_date, issued_at COLLATE "C", id);
DROP INDEX invoices_day;
-- The reversals report's page, newest first.
CREATE INDEX invoices_corrective ON invoices (issue_date DESC, shop_id, id DESC) WHERE document_kind = 'CORRECTIVE';
-- A summary's orders, read along with it.
CREATE INDEX invoices_settled_by ON invoices (shop_id, settled_by_invoice_id) WHERE settled_by_invoice_id IS NOT NULL;
-- An open till's cash sales so far.
CREATE INDEX invoices_cash_day ON invoices (shop_id, cash_day_id) WHERE cash_day_id IS NOT NULL;
CREATE INDEX invoices_search ON invoices USING gin (search_text gin_trgm_ops);
-- A document's lines, read when it is shown (the other rows it names are found by their keys).
CREATE INDEX shop_rows_lines ON shop_rows (shop_id, ((row->>'invoice_id')::bigint)) WHERE tbl = 'invoice_lines';

-- The columns of the shop's tables the reports read; a row's other columns stay in shop_rows.
CREATE TABLE users (
    shop_id        BIGINT NOT NULL,
    id             BIGINT NOT NULL,
    name           TEXT,
    operator_code  TEXT,
    PRIMARY KEY (shop_id, id)
);

CREATE TABLE business_units (
    shop_id  BIGINT NOT NULL,
    id       BIGINT NOT NULL,
    name     TEXT,
    PRIMARY KEY (shop_id, id)
);

CREATE TABLE fiscal_devices (
    shop_id           BIGINT NOT NULL,
    id                BIGINT NOT NULL,
    business_unit_id  BIGINT,
    name              TEXT,
    tcr_code          TEXT,
    PRIMARY KEY (shop_id, id)
);

CREATE TABLE cash_days (
    shop_id               BIGINT NOT NULL,
    id                    BIGINT NOT NULL,
    tcr_code              TEXT,
    business_day          TEXT,
    opened_at             TEXT,
    opened_automatically  BIGINT,
    closed_at             TEXT,
    expected              TEXT,
    counted               TEXT,
    cash_sales            TEXT,
    PRIMARY KEY (shop_id, id)
);
CREATE INDEX cash_days_day ON cash_days (business_day, shop_id);

CREATE TABLE cash_actions (
    shop_id        BIGINT NOT NULL,
    id             BIGINT NOT NULL,
    cash_day_id    BIGINT,
    tcr_code       TEXT,
    business_day   TEXT,
    action_type    TEXT,
    purpose        TEXT,
    fiscal_status  TEXT,
    amount         TEXT,
    PRIMARY KEY (shop_id, id)
);
CREATE INDEX cash_actions_day ON cash_actions (business_day, shop_id);
CREATE INDEX cash_actions_of_day ON cash_actions (shop_id, cash_day_id, id);

CREATE TABLE wtns (
    shop_id              BIGINT NOT NULL,
    id                   BIGINT NOT NULL,
    issue_date           TEXT,
    fwtnic               TEXT,
    value_of_goods       TEXT,
    destination_unit_id  BIGINT,
    destination_point    TEXT,
    destination_city     TEXT,
    destination_address  TEXT,
    PRIMARY KEY (shop_id, id)
);
CREATE INDEX wtns_day ON wtns (issue_date, shop_id);

INSERT INTO users SELECT d.* FROM shop_rows r,
    jsonb_populate_record(NULL::users, r.row || jsonb_build_object('shop_id', r.shop_id)) d WHERE r.tbl = 'users';
INSERT INTO business_units SELECT d.* FROM shop_rows r,
    jsonb_populate_record(NULL::business_units, r.row || jsonb_build_object('shop_id', r.shop_id)) d
    WHERE r.tbl = 'business_units';
INSERT INTO fiscal_devices SELECT d.* FROM shop_rows r,
    jsonb_populate_record(NULL::fiscal_devices, r.row || jsonb_build_object('shop_id', r.shop_id)) d
    WHERE r.tbl = 'fiscal_devices';
INSERT INTO cash_days SELECT d.* FROM shop_rows r,
    jsonb_populate_record(NULL::cash_days, r.row || jsonb_build_object('shop_id', r.shop_id)) d
    WHERE r.tbl = 'cash_days';
INSERT INTO cash_actions SELECT d.* FROM shop_rows r,
    jsonb_populate_record(NULL::cash_actions, r.row || jsonb_build_object('shop_id', r.shop_id)) d
    WHERE r.tbl = 'cash_actions';
INSERT INTO wtns SELECT d.* FROM shop_rows r,
    jsonb_populate_record(NULL::wtns, r.row || jsonb_build_object('shop_id', r.shop_id)) d WHERE r.tbl = 'wtns';
