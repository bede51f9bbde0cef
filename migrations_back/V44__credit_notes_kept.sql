-- The way back of V44 (`arka downgrade`): the previous release lists no credit notes.
DROP TRIGGER credit_notes_kept;
DROP TABLE credit_notes_found;
DROP TABLE credit_notes;
