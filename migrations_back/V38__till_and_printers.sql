-- The way back of V38 (`arka downgrade`): the till's printers, receipt prints and settings are
-- settings of the till the previous release does not have; every document stays in `invoices`.
DROP TABLE till_settings;
DROP TABLE receipt_prints;
DROP TABLE till_printers;
