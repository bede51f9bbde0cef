-- The invoice list's `query` filter over a trigram index of search_text (number, buyer name,
-- NIPT, lower-cased), so a name is found among a million invoices without reading them all:
-- `search_text LIKE '%term%'` on this table uses the index for terms of 3 characters or more.
-- External content: the text lives once, in invoices; the triggers keep the index in step.

CREATE VIRTUAL TABLE invoices_search USING fts5(
    search_text,
    content = 'invoices',
    content_rowid = 'id',
    tokenize = 'trigram'
);
INSERT INTO invoices_search (invoices_search) VALUES ('rebuild');

CREATE TRIGGER invoices_search_insert AFTER INSERT ON invoices BEGIN
    INSERT INTO invoices_search (rowid, search_text) VALUES (new.id, new.search_text);
END;
CREATE TRIGGER invoices_search_delete AFTER DELETE ON invoices BEGIN
    INSERT INTO invoices_search (invoices_search, rowid, search_text) VALUES ('delete', old.id, old.search_text);
END;
CREATE TRIGGER invoices_search_update AFTER UPDATE OF search_text ON invoices BEGIN
    INSERT INTO invoices_search (invoices_search, rowid, search_text) VALUES ('delete', old.id, old.search_text);
    INSERT INTO invoices_search (rowid, search_text) VALUES (new.id, new.search_text);
END;
