-- Issues 41 and 42: a revoked user is out, and an owner who forgot the password has the box.
--
-- The one-time code `arka users reset-password EMAIL` prints on the box, with which its user
-- sets a new password at the page (`POST /api/v1/session/reset`). One per user: a new one
-- replaces the last; it ends when used, when the user's access is revoked, or at `expires_at`.
-- Only its SHA-256 is kept.
CREATE TABLE password_reset_codes (
    user_id     INTEGER PRIMARY KEY REFERENCES users(id),
    code_hash   TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    expires_at  TEXT NOT NULL
);
