-- Issue 30: a chain's head office (HQ). Every change of a document, of the catalog or of the
-- accounts a restore needs is noted in hq_outbox by a trigger, in the writing transaction itself:
-- the note commits with the change or not at all, in the order of the commits, and no service
-- code takes part. The HQ worker (src/services/hq_sync.rs) reads each named row as it is when it ships
-- it, so a note holds the row's key only. Certificates never leave the shop.

-- The HQ this shop feeds: one row once `serve --hq-url` has started, none for a lone shop, whose
-- triggers then write nothing (their WHEN reads this one-row table).
CREATE TABLE hq_link (
    id               INTEGER PRIMARY KEY CHECK (id = 1),
    url              TEXT NOT NULL,
    joined_at        TEXT NOT NULL,
    -- The last version of the HQ's products this shop took (`GET /hq/v1/products`).
    catalog_version  INTEGER NOT NULL DEFAULT 0
);

-- Products set at the head office: their price and details come down from it, and a local
-- change of one is refused (services::products).
CREATE TABLE central_products (
    product_id  INTEGER PRIMARY KEY REFERENCES products(id),
    version     INTEGER NOT NULL
);

-- What the HQ has not acknowledged yet, oldest first. key is the row's primary key as a JSON
-- object of its columns; op is 'upsert' or 'delete'. AUTOINCREMENT: a sequence is never reused,
-- even after the acknowledged notes are deleted, so the HQ's highest sequence stays a watermark.
CREATE TABLE hq_outbox (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    tbl         TEXT NOT NULL,
    key         TEXT NOT NULL,
    op          TEXT NOT NULL,
    noted_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TRIGGER hq_partners_insert AFTER INSERT ON partners WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('partners', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_partners_update AFTER UPDATE ON partners WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('partners', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_partners_delete AFTER DELETE ON partners WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('partners', json_object('id', OLD.id), 'delete'); END;

CREATE TRIGGER hq_companies_insert AFTER INSERT ON companies WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('companies', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_companies_update AFTER UPDATE ON companies WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('companies', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_companies_delete AFTER DELETE ON companies WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('companies', json_object('id', OLD.id), 'delete'); END;

CREATE TRIGGER hq_business_units_insert AFTER INSERT ON business_units WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('business_units', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_business_units_update AFTER UPDATE ON business_units WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('business_units', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_business_units_delete AFTER DELETE ON business_units WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('business_units', json_object('id', OLD.id), 'delete'); END;

CREATE TRIGGER hq_users_insert AFTER INSERT ON users WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('users', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_users_update AFTER UPDATE ON users WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('users', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_users_delete AFTER DELETE ON users WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('users', json_object('id', OLD.id), 'delete'); END;

CREATE TRIGGER hq_fiscal_devices_insert AFTER INSERT ON fiscal_devices WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('fiscal_devices', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_fiscal_devices_update AFTER UPDATE ON fiscal_devices WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('fiscal_devices', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_fiscal_devices_delete AFTER DELETE ON fiscal_devices WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('fiscal_devices', json_object('id', OLD.id), 'delete'); END;

CREATE TRIGGER hq_bank_accounts_insert AFTER INSERT ON bank_accounts WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('bank_accounts', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_bank_accounts_update AFTER UPDATE ON bank_accounts WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('bank_accounts', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_bank_accounts_delete AFTER DELETE ON bank_accounts WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('bank_accounts', json_object('id', OLD.id), 'delete'); END;

CREATE TRIGGER hq_product_categories_insert AFTER INSERT ON product_categories WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('product_categories', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_product_categories_update AFTER UPDATE ON product_categories WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('product_categories', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_product_categories_delete AFTER DELETE ON product_categories WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('product_categories', json_object('id', OLD.id), 'delete'); END;

CREATE TRIGGER hq_products_insert AFTER INSERT ON products WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('products', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_products_update AFTER UPDATE ON products WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('products', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_products_delete AFTER DELETE ON products WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('products', json_object('id', OLD.id), 'delete'); END;

CREATE TRIGGER hq_clients_insert AFTER INSERT ON clients WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('clients', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_clients_update AFTER UPDATE ON clients WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('clients', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_clients_delete AFTER DELETE ON clients WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('clients', json_object('id', OLD.id), 'delete'); END;

CREATE TRIGGER hq_cash_days_insert AFTER INSERT ON cash_days WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('cash_days', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_cash_days_update AFTER UPDATE ON cash_days WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('cash_days', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_cash_days_delete AFTER DELETE ON cash_days WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('cash_days', json_object('id', OLD.id), 'delete'); END;

CREATE TRIGGER hq_invoices_insert AFTER INSERT ON invoices WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('invoices', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_invoices_update AFTER UPDATE ON invoices WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('invoices', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_invoices_delete AFTER DELETE ON invoices WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('invoices', json_object('id', OLD.id), 'delete'); END;

CREATE TRIGGER hq_invoice_lines_insert AFTER INSERT ON invoice_lines WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('invoice_lines', json_object('invoice_id', NEW.invoice_id, 'position', NEW.position), 'upsert'); END;
CREATE TRIGGER hq_invoice_lines_update AFTER UPDATE ON invoice_lines WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('invoice_lines', json_object('invoice_id', NEW.invoice_id, 'position', NEW.position), 'upsert'); END;
CREATE TRIGGER hq_invoice_lines_delete AFTER DELETE ON invoice_lines WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('invoice_lines', json_object('invoice_id', OLD.invoice_id, 'position', OLD.position), 'delete'); END;

CREATE TRIGGER hq_invoice_payments_insert AFTER INSERT ON invoice_payments WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('invoice_payments', json_object('invoice_id', NEW.invoice_id, 'position', NEW.position), 'upsert'); END;
CREATE TRIGGER hq_invoice_payments_update AFTER UPDATE ON invoice_payments WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('invoice_payments', json_object('invoice_id', NEW.invoice_id, 'position', NEW.position), 'upsert'); END;
CREATE TRIGGER hq_invoice_payments_delete AFTER DELETE ON invoice_payments WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('invoice_payments', json_object('invoice_id', OLD.invoice_id, 'position', OLD.position), 'delete'); END;

CREATE TRIGGER hq_einvoices_insert AFTER INSERT ON einvoices WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('einvoices', json_object('invoice_id', NEW.invoice_id), 'upsert'); END;
CREATE TRIGGER hq_einvoices_update AFTER UPDATE ON einvoices WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('einvoices', json_object('invoice_id', NEW.invoice_id), 'upsert'); END;
CREATE TRIGGER hq_einvoices_delete AFTER DELETE ON einvoices WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('einvoices', json_object('invoice_id', OLD.invoice_id), 'delete'); END;

CREATE TRIGGER hq_purchase_invoices_insert AFTER INSERT ON purchase_invoices WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('purchase_invoices', json_object('company_id', NEW.company_id, 'eic', NEW.eic), 'upsert'); END;
CREATE TRIGGER hq_purchase_invoices_update AFTER UPDATE ON purchase_invoices WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('purchase_invoices', json_object('company_id', NEW.company_id, 'eic', NEW.eic), 'upsert'); END;
CREATE TRIGGER hq_purchase_invoices_delete AFTER DELETE ON purchase_invoices WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('purchase_invoices', json_object('company_id', OLD.company_id, 'eic', OLD.eic), 'delete'); END;

CREATE TRIGGER hq_wtns_insert AFTER INSERT ON wtns WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('wtns', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_wtns_update AFTER UPDATE ON wtns WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('wtns', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_wtns_delete AFTER DELETE ON wtns WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('wtns', json_object('id', OLD.id), 'delete'); END;

CREATE TRIGGER hq_wtn_lines_insert AFTER INSERT ON wtn_lines WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('wtn_lines', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_wtn_lines_update AFTER UPDATE ON wtn_lines WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('wtn_lines', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_wtn_lines_delete AFTER DELETE ON wtn_lines WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('wtn_lines', json_object('id', OLD.id), 'delete'); END;

CREATE TRIGGER hq_invoice_wtns_insert AFTER INSERT ON invoice_wtns WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('invoice_wtns', json_object('invoice_id', NEW.invoice_id), 'upsert'); END;
CREATE TRIGGER hq_invoice_wtns_update AFTER UPDATE ON invoice_wtns WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('invoice_wtns', json_object('invoice_id', NEW.invoice_id), 'upsert'); END;
CREATE TRIGGER hq_invoice_wtns_delete AFTER DELETE ON invoice_wtns WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('invoice_wtns', json_object('invoice_id', OLD.invoice_id), 'delete'); END;

CREATE TRIGGER hq_wtn_invoiced_insert AFTER INSERT ON wtn_invoiced WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('wtn_invoiced', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_wtn_invoiced_update AFTER UPDATE ON wtn_invoiced WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('wtn_invoiced', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_wtn_invoiced_delete AFTER DELETE ON wtn_invoiced WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('wtn_invoiced', json_object('id', OLD.id), 'delete'); END;

CREATE TRIGGER hq_cash_actions_insert AFTER INSERT ON cash_actions WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('cash_actions', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_cash_actions_update AFTER UPDATE ON cash_actions WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('cash_actions', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_cash_actions_delete AFTER DELETE ON cash_actions WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('cash_actions', json_object('id', OLD.id), 'delete'); END;

CREATE TRIGGER hq_fiscal_queue_insert AFTER INSERT ON fiscal_queue WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('fiscal_queue', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_fiscal_queue_update AFTER UPDATE ON fiscal_queue WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('fiscal_queue', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_fiscal_queue_delete AFTER DELETE ON fiscal_queue WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('fiscal_queue', json_object('id', OLD.id), 'delete'); END;

CREATE TRIGGER hq_held_numbers_insert AFTER INSERT ON held_numbers WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('held_numbers', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_held_numbers_update AFTER UPDATE ON held_numbers WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('held_numbers', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_held_numbers_delete AFTER DELETE ON held_numbers WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('held_numbers', json_object('id', OLD.id), 'delete'); END;

CREATE TRIGGER hq_numbering_floors_insert AFTER INSERT ON numbering_floors WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('numbering_floors', json_object('company_id', NEW.company_id, 'sequence', NEW.sequence, 'year', NEW.year), 'upsert'); END;
CREATE TRIGGER hq_numbering_floors_update AFTER UPDATE ON numbering_floors WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('numbering_floors', json_object('company_id', NEW.company_id, 'sequence', NEW.sequence, 'year', NEW.year), 'upsert'); END;
CREATE TRIGGER hq_numbering_floors_delete AFTER DELETE ON numbering_floors WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('numbering_floors', json_object('company_id', OLD.company_id, 'sequence', OLD.sequence, 'year', OLD.year), 'delete'); END;

CREATE TRIGGER hq_stock_levels_insert AFTER INSERT ON stock_levels WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('stock_levels', json_object('business_unit_id', NEW.business_unit_id, 'product_id', NEW.product_id), 'upsert'); END;
CREATE TRIGGER hq_stock_levels_update AFTER UPDATE ON stock_levels WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('stock_levels', json_object('business_unit_id', NEW.business_unit_id, 'product_id', NEW.product_id), 'upsert'); END;
CREATE TRIGGER hq_stock_levels_delete AFTER DELETE ON stock_levels WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('stock_levels', json_object('business_unit_id', OLD.business_unit_id, 'product_id', OLD.product_id), 'delete'); END;

CREATE TRIGGER hq_stock_movements_insert AFTER INSERT ON stock_movements WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('stock_movements', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_stock_movements_update AFTER UPDATE ON stock_movements WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('stock_movements', json_object('id', NEW.id), 'upsert'); END;
CREATE TRIGGER hq_stock_movements_delete AFTER DELETE ON stock_movements WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('stock_movements', json_object('id', OLD.id), 'delete'); END;

CREATE TRIGGER hq_report_sales_insert AFTER INSERT ON report_sales WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('report_sales', json_object('company_id', NEW.company_id, 'day', NEW.day, 'business_unit_id', NEW.business_unit_id, 'tcr_code', NEW.tcr_code, 'user_id', NEW.user_id, 'operator_code', NEW.operator_code, 'kind', NEW.kind, 'currency', NEW.currency), 'upsert'); END;
CREATE TRIGGER hq_report_sales_update AFTER UPDATE ON report_sales WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('report_sales', json_object('company_id', NEW.company_id, 'day', NEW.day, 'business_unit_id', NEW.business_unit_id, 'tcr_code', NEW.tcr_code, 'user_id', NEW.user_id, 'operator_code', NEW.operator_code, 'kind', NEW.kind, 'currency', NEW.currency), 'upsert'); END;
CREATE TRIGGER hq_report_sales_delete AFTER DELETE ON report_sales WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('report_sales', json_object('company_id', OLD.company_id, 'day', OLD.day, 'business_unit_id', OLD.business_unit_id, 'tcr_code', OLD.tcr_code, 'user_id', OLD.user_id, 'operator_code', OLD.operator_code, 'kind', OLD.kind, 'currency', OLD.currency), 'delete'); END;

CREATE TRIGGER hq_report_vat_insert AFTER INSERT ON report_vat WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('report_vat', json_object('company_id', NEW.company_id, 'day', NEW.day, 'business_unit_id', NEW.business_unit_id, 'tcr_code', NEW.tcr_code, 'user_id', NEW.user_id, 'operator_code', NEW.operator_code, 'kind', NEW.kind, 'vat_rate', NEW.vat_rate, 'exemption', NEW.exemption), 'upsert'); END;
CREATE TRIGGER hq_report_vat_update AFTER UPDATE ON report_vat WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('report_vat', json_object('company_id', NEW.company_id, 'day', NEW.day, 'business_unit_id', NEW.business_unit_id, 'tcr_code', NEW.tcr_code, 'user_id', NEW.user_id, 'operator_code', NEW.operator_code, 'kind', NEW.kind, 'vat_rate', NEW.vat_rate, 'exemption', NEW.exemption), 'upsert'); END;
CREATE TRIGGER hq_report_vat_delete AFTER DELETE ON report_vat WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('report_vat', json_object('company_id', OLD.company_id, 'day', OLD.day, 'business_unit_id', OLD.business_unit_id, 'tcr_code', OLD.tcr_code, 'user_id', OLD.user_id, 'operator_code', OLD.operator_code, 'kind', OLD.kind, 'vat_rate', OLD.vat_rate, 'exemption', OLD.exemption), 'delete'); END;

CREATE TRIGGER hq_report_payments_insert AFTER INSERT ON report_payments WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('report_payments', json_object('company_id', NEW.company_id, 'day', NEW.day, 'business_unit_id', NEW.business_unit_id, 'tcr_code', NEW.tcr_code, 'user_id', NEW.user_id, 'operator_code', NEW.operator_code, 'kind', NEW.kind, 'payment_method', NEW.payment_method), 'upsert'); END;
CREATE TRIGGER hq_report_payments_update AFTER UPDATE ON report_payments WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('report_payments', json_object('company_id', NEW.company_id, 'day', NEW.day, 'business_unit_id', NEW.business_unit_id, 'tcr_code', NEW.tcr_code, 'user_id', NEW.user_id, 'operator_code', NEW.operator_code, 'kind', NEW.kind, 'payment_method', NEW.payment_method), 'upsert'); END;
CREATE TRIGGER hq_report_payments_delete AFTER DELETE ON report_payments WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('report_payments', json_object('company_id', OLD.company_id, 'day', OLD.day, 'business_unit_id', OLD.business_unit_id, 'tcr_code', OLD.tcr_code, 'user_id', OLD.user_id, 'operator_code', OLD.operator_code, 'kind', OLD.kind, 'payment_method', OLD.payment_method), 'delete'); END;

CREATE TRIGGER hq_report_products_insert AFTER INSERT ON report_products WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('report_products', json_object('company_id', NEW.company_id, 'day', NEW.day, 'business_unit_id', NEW.business_unit_id, 'tcr_code', NEW.tcr_code, 'product_code', NEW.product_code), 'upsert'); END;
CREATE TRIGGER hq_report_products_update AFTER UPDATE ON report_products WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('report_products', json_object('company_id', NEW.company_id, 'day', NEW.day, 'business_unit_id', NEW.business_unit_id, 'tcr_code', NEW.tcr_code, 'product_code', NEW.product_code), 'upsert'); END;
CREATE TRIGGER hq_report_products_delete AFTER DELETE ON report_products WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('report_products', json_object('company_id', OLD.company_id, 'day', OLD.day, 'business_unit_id', OLD.business_unit_id, 'tcr_code', OLD.tcr_code, 'product_code', OLD.product_code), 'delete'); END;

CREATE TRIGGER hq_report_clients_insert AFTER INSERT ON report_clients WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('report_clients', json_object('company_id', NEW.company_id, 'day', NEW.day, 'business_unit_id', NEW.business_unit_id, 'buyer_key', NEW.buyer_key), 'upsert'); END;
CREATE TRIGGER hq_report_clients_update AFTER UPDATE ON report_clients WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('report_clients', json_object('company_id', NEW.company_id, 'day', NEW.day, 'business_unit_id', NEW.business_unit_id, 'buyer_key', NEW.buyer_key), 'upsert'); END;
CREATE TRIGGER hq_report_clients_delete AFTER DELETE ON report_clients WHEN EXISTS (SELECT 1 FROM hq_link)
BEGIN INSERT INTO hq_outbox (tbl, key, op) VALUES ('report_clients', json_object('company_id', OLD.company_id, 'day', OLD.day, 'business_unit_id', OLD.business_unit_id, 'buyer_key', OLD.buyer_key), 'delete'); END;

