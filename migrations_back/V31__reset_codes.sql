-- The way back of V31 (`arka downgrade`): the reset codes are one-time and short-lived; the
-- previous release has no page that takes them.
DROP TABLE password_reset_codes;
