-- What a person counts is the drawer (issue 42): a close now expects the banknotes the till's
-- documents took in and gave out, not the spec's balance, which counts a card sale as cash.
-- expected (a day's) is from now on the drawer's expectation; the days closed before keep the
-- balance they were counted against, and say so by having no balance of their own below.

-- The spec's balance at the close (card sales included); NULL on a day closed before this.
ALTER TABLE cash_days ADD COLUMN balance TEXT;
-- The till's newest cash action when the day was closed (its closing withdrawal, when there is
-- one): the next day's drawer starts from what this count left, plus the actions after it.
ALTER TABLE cash_days ADD COLUMN drawer_mark INTEGER;
-- The count by lek notes and coins, when the close sent one: JSON {"5000": pieces, ...}.
ALTER TABLE cash_days ADD COLUMN counted_by_denomination TEXT;
-- What the day's documents came to (receipts, sales by payment method, VAT by rate, the
-- cancellations, the banknotes in and out, who made the day), kept when it closes: its documents
-- never change after, and the Z reports of 500 days then read 500 rows (domain::day_book, JSON,
-- amounts as exact text). NULL on a day closed before: its report sums its documents.
ALTER TABLE cash_days ADD COLUMN day_book TEXT;

-- The days closed before: their newest own action. One indexed look-up per closed day (a
-- decade of 4 tills is 14,600 days).
UPDATE cash_days SET drawer_mark = (SELECT MAX(a.id) FROM cash_actions a WHERE a.cash_day_id = cash_days.id)
WHERE closed_at IS NOT NULL;
