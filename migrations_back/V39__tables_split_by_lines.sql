-- The way back of V39 (`arka downgrade`): a table's name on its orders and what each summary took
-- of an order's lines. Every order and summary stays in `invoices`; an order paid whole keeps its
-- `settled_by_invoice_id`. `arka downgrade` refuses while an order is paid in part (the previous
-- release would read it as open in full and take its whole amount again).
DROP INDEX order_line_settlements_summary;
DROP TABLE order_line_settlements;
DROP TABLE order_tables;
