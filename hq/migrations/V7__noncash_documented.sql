-- Issue 43: a non-cash number's document, once the HQ holds it, marks the number documented (in
-- the batch that brings it), so the numbers held with no document are read off a small partial
-- index however many documents the chain has, never by probing every shop's invoices.

ALTER TABLE noncash_numbers ADD COLUMN documented BOOLEAN NOT NULL DEFAULT false;
UPDATE noncash_numbers n SET documented = true
    WHERE EXISTS (
        SELECT 1 FROM invoices i JOIN shops s ON s.id = i.shop_id
        WHERE s.nuis = n.nuis AND i.year = n.year AND i.ord_num = n.ord_num AND i.kind = 'NONCASH');
CREATE INDEX noncash_numbers_held ON noncash_numbers (reserved_at) WHERE NOT documented AND shop_id IS NOT NULL;
