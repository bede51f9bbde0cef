-- Each document of a till belongs to the cash day that was open on the till when it was written
-- (the day it opened itself, when it had to). A day's cash sales are found by that link: comparing
-- times to the second counted twice the sales of a second in which one day closed and the next
-- opened.
ALTER TABLE invoices ADD COLUMN cash_day_id INTEGER REFERENCES cash_days(id);

-- The documents written before this link: the latest day of their till opened at or before them,
-- compared to the millisecond (julianday reads the fraction every stored time carries).
UPDATE invoices SET cash_day_id = (
    SELECT d.id FROM cash_days d
    WHERE d.company_id = invoices.company_id AND d.tcr_code = invoices.tcr_code
      AND julianday(d.opened_at) <= julianday(invoices.issued_at)
    ORDER BY d.id DESC LIMIT 1)
WHERE tcr_code IS NOT NULL;

CREATE INDEX invoices_cash_day ON invoices(cash_day_id) WHERE cash_day_id IS NOT NULL;
