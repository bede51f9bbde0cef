-- Issue 34: the request each queue entry keeps (what was signed and sent to the CIS) is stored
-- packed: a format byte and a raw DEFLATE stream with a preset dictionary (src/store/kept.rs),
-- about a fifth of its text. `arka_pack_request` is the store's own SQL function, registered on the
-- connection that migrates; it gives back the same request, byte for byte, when read. Entries of
-- every status are packed; none is deleted.
UPDATE fiscal_queue SET unsigned_request = arka_pack_request(unsigned_request)
WHERE typeof(unsigned_request) = 'text';
