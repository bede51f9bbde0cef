-- The way back of V35 (`arka downgrade`): the previous release counts a close against the spec's
-- balance and sums a closed day's documents for its Z report; every cash day, action and
-- document stays, only what this release kept beside them goes.
ALTER TABLE cash_days DROP COLUMN day_book;
ALTER TABLE cash_days DROP COLUMN counted_by_denomination;
ALTER TABLE cash_days DROP COLUMN drawer_mark;
ALTER TABLE cash_days DROP COLUMN balance;
