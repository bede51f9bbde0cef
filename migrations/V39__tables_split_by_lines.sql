-- Issue 45: a café's table read from the server and its bill split by lines. New tables only:
-- a start does no work over the existing rows.

-- The table an order was taken for (`table` of the order's body), so that every tablet, and any
-- POS, reads a till's open tables from the server.
CREATE TABLE IF NOT EXISTS order_tables (
    order_id    INTEGER PRIMARY KEY REFERENCES invoices(id),
    table_name  TEXT NOT NULL
);

-- What each summary took of each line of an order: a guest's bill takes some lines, or part of a
-- line's quantity, and the rest of the order stays open. An order is settled (its
-- `settled_by_invoice_id`) by the summary that takes the last of it. Summaries issued before this
-- version have no rows here: they settled their orders whole.
CREATE TABLE IF NOT EXISTS order_line_settlements (
    order_id    INTEGER NOT NULL REFERENCES invoices(id),
    position    INTEGER NOT NULL,
    summary_id  INTEGER NOT NULL REFERENCES invoices(id),
    quantity    TEXT NOT NULL,
    PRIMARY KEY (order_id, position, summary_id)
) WITHOUT ROWID;
-- A summary's orders (its answer's `settledOrderInvoices`), and its rows given up with it.
CREATE INDEX IF NOT EXISTS order_line_settlements_summary ON order_line_settlements(summary_id);
