-- The way back of V42 (`arka downgrade`): the previous release names no box to its head office
-- and sets nothing aside; `store::downgrade` refuses while a change waits set aside, so none is
-- lost here.
DROP TABLE hq_set_aside;
ALTER TABLE hq_link DROP COLUMN box_id;
