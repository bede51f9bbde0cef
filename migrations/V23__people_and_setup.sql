-- Issue 29: people sign in to the owner's page, and a fresh box is set up from a browser.

-- A user's password (argon2id, PHC string). NULL: the user has only a token (a POS app).
ALTER TABLE users ADD COLUMN password_hash TEXT;

-- A signed-in browser. The cookie holds a random id; only its SHA-256 is kept here. A session
-- ends when idle longer than the server's --session-idle, at sign-out, and when the user's
-- password changes.
CREATE TABLE sessions (
    id            INTEGER PRIMARY KEY,
    id_hash       TEXT NOT NULL UNIQUE,
    user_id       INTEGER NOT NULL REFERENCES users(id),
    created_at    TEXT NOT NULL,
    last_seen_at  TEXT NOT NULL
);
CREATE INDEX sessions_user ON sessions(user_id);

-- The one-time code a fresh production box prints at start. Only its SHA-256 is kept; a new
-- start replaces an unused one; it ends when used (the owner is made) or expired.
CREATE TABLE setup_codes (
    id          INTEGER PRIMARY KEY,
    code_hash   TEXT NOT NULL UNIQUE,
    created_at  TEXT NOT NULL,
    expires_at  TEXT NOT NULL,
    used_at     TEXT
);

-- The wizard's first step, kept until the owner's step makes the company from it (one row).
CREATE TABLE setup_business (
    id             INTEGER PRIMARY KEY CHECK (id = 1),
    nuis           TEXT NOT NULL,
    name           TEXT NOT NULL,
    address        TEXT,
    issuer_in_vat  INTEGER NOT NULL,
    saved_at       TEXT NOT NULL
);
