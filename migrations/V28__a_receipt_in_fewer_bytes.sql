-- Issue 34: what a receipt costs the disk. Nothing is deleted; what is kept shorter reads back
-- the same through the same routes (src/store/kept.rs, src/domain/verify.rs). Run again over its
-- own result it changes nothing.

-- An invoice's IIC signature is kept once, by its queue entry: the kept request (format 2) holds
-- it as its 256 bytes. The invoice's entries are packed again (format 1 to 2; a request a restore
-- left as text, too), then each invoice whose entry holds the same signature lets its own copy go.
UPDATE fiscal_queue SET unsigned_request = arka_pack_request(arka_unpack_request(unsigned_request))
WHERE operation = 'RegisterInvoiceRequest'
  AND (typeof(unsigned_request) = 'text' OR substr(unsigned_request, 1, 1) = x'01');

-- The rows' new shapes read back as before, whichever a head office holds: it is not sent every
-- invoice again (its trigger stands aside for these two updates, and is put back as it was).
DROP TRIGGER hq_invoices_update;

UPDATE invoices SET iic_signature = ''
WHERE iic_signature <> ''
  AND iic_signature = (SELECT arka_kept_signature(q.unsigned_request) FROM fiscal_queue q
                       WHERE q.header_uuid = invoices.header_uuid);

-- The verify URL is made of the row's own fields but three: the row keeps those (the base by a
-- letter, the issuer's NUIS, the software's code), or the whole URL when its fields cannot make
-- it back byte for byte (a foreign-currency invoice: its URL's price is in lek).
UPDATE invoices
SET verify_url = arka_kept_verify_url(verify_url, iic, issue_date_time, ord_num, business_unit_code, tcr_code, total)
WHERE verify_url LIKE 'https://%';

CREATE TRIGGER hq_invoices_update AFTER UPDATE ON invoices WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('invoices', json_object('id', NEW.id), 'upsert'); END;

-- Indexes no plan needs whole. The till's cash balance looks its cash documents up by TCR
-- (`kind = 'CASH'` in its query); its time is compared as text cut to the second, which no index
-- serves. The queue's worker, `arka queue` and the health probe read entries on their way or
-- refused, never the delivered ones (`status <> 'delivered'` in their queries).
DROP INDEX IF EXISTS invoices_cash_register;
CREATE INDEX IF NOT EXISTS invoices_till_cash ON invoices(company_id, tcr_code) WHERE kind = 'CASH';
DROP INDEX IF EXISTS fiscal_queue_waiting;
CREATE INDEX IF NOT EXISTS fiscal_queue_open ON fiscal_queue(status, id) WHERE status <> 'delivered';
