-- The invoice list's trigram index (V5) is written in batches after the documents' own
-- transactions, not inside them: a cash invoice's transaction wrote 4 of its ~31 log pages for it
-- (a segment of its own, the index's structure and averages, its size row), and each of them is on
-- the disk before the POS is answered. `indexed_to` is the highest invoice id the index covers:
-- every invoice up to it is in the index, every one above it is not yet, and the list reads those
-- from the table itself (`store::invoices::list`), so a search finds a document the moment it is
-- issued. `store::invoices::index_pending` moves the mark.
CREATE TABLE invoices_search_mark (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    indexed_to INTEGER NOT NULL
);
INSERT INTO invoices_search_mark (id, indexed_to) VALUES (1, (SELECT COALESCE(MAX(id), 0) FROM invoices));

-- The triggers keep only what is already indexed in step. An insert at or below the mark (the id
-- of a deleted newest invoice used again) is indexed at once, since the batches never look there.
DROP TRIGGER invoices_search_insert;
DROP TRIGGER invoices_search_delete;
DROP TRIGGER invoices_search_update;
CREATE TRIGGER invoices_search_insert AFTER INSERT ON invoices
WHEN new.id <= (SELECT indexed_to FROM invoices_search_mark) BEGIN
    INSERT INTO invoices_search (rowid, search_text) VALUES (new.id, new.search_text);
END;
CREATE TRIGGER invoices_search_delete AFTER DELETE ON invoices
WHEN old.id <= (SELECT indexed_to FROM invoices_search_mark) BEGIN
    INSERT INTO invoices_search (invoices_search, rowid, search_text) VALUES ('delete', old.id, old.search_text);
END;
CREATE TRIGGER invoices_search_update AFTER UPDATE OF search_text ON invoices
WHEN old.id <= (SELECT indexed_to FROM invoices_search_mark) BEGIN
    INSERT INTO invoices_search (invoices_search, rowid, search_text) VALUES ('delete', old.id, old.search_text);
    INSERT INTO invoices_search (rowid, search_text) VALUES (new.id, new.search_text);
END;

-- Two indexes no query uses: each full index is one more page in every document's transaction.
-- (company, document_kind, id) was superseded by V16's (company, document_kind, issue_date, id);
-- a queue entry is deleted by its id, never looked up by its document.
DROP INDEX invoices_company_document_kind;
DROP INDEX fiscal_queue_document;
