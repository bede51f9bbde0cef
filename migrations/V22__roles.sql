-- Roles and tokens people can manage (issue 28). Every user has one of three roles; the lowest
-- role each route needs is `api::permissions`' table, the only place that says so.
--
-- A user made from now on says its role (`store::accounts::insert_user` always names it); the
-- default only answers for a row written by an older binary against this schema.
ALTER TABLE users ADD COLUMN role TEXT NOT NULL DEFAULT 'cashier'
    CHECK (role IN ('owner', 'manager', 'cashier'));

-- An upgraded database: every token kept working for everything before roles, so the users
-- keep working as managers (nothing an integrator does today stops), and the first user of
-- each company, the one its registration made, is its owner.
UPDATE users SET role = 'manager';
UPDATE users SET role = 'owner' WHERE id IN (SELECT MIN(id) FROM users GROUP BY company_id);

-- The first characters of the current token, so a person can tell tokens apart in the list;
-- null for a token made before this version (only its hash was ever kept) until it is rotated.
ALTER TABLE users ADD COLUMN token_prefix TEXT;
-- When the token was revoked; null while it works. A revoked user's `token_hash` is
-- `revoked:<id>`, which no token hashes to (a SHA-256 is 64 hex digits).
ALTER TABLE users ADD COLUMN token_revoked_at TEXT;

-- When and from where each user's token was last used. Kept apart from `users`: the server
-- writes it in batches, and a write to `users` makes every cached caller be read again.
CREATE TABLE user_token_uses (
    user_id      INTEGER PRIMARY KEY REFERENCES users(id),
    last_used_at TEXT NOT NULL,
    last_used_ip TEXT NOT NULL
);
