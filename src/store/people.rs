//! People at the owner's page: passwords, sessions, one-time reset codes, the first start's
//! setup code and the wizard's saved first step.

use rusqlite::{Connection, OptionalExtension, named_params};

use super::{Result, now_text};

/// A user found by e-mail for a sign-in.
#[derive(Debug, Clone)]
pub struct Credentials {
    pub user_id: i64,
    pub company_id: i64,
    pub password_hash: Option<String>,
    /// An owner took the user's access away: no sign-in until an owner restores it.
    pub revoked: bool,
}

/// The wizard's business step as saved.
#[derive(Debug, Clone)]
pub struct SetupBusiness {
    pub nuis: String,
    pub name: String,
    pub address: Option<String>,
    pub issuer_in_vat: bool,
}

/// What the company has of each wizard step after the owner's.
#[derive(Debug, Clone, Default)]
pub struct Progress {
    pub certificate: bool,
    pub units_with_code: i64,
    pub devices: i64,
    /// Users with an operator code and a fiscal device: who can issue a receipt.
    pub cashiers: i64,
    pub receipts: i64,
}

pub fn credentials(conn: &Connection, email: &str) -> Result<Option<Credentials>> {
    Ok(conn
        .query_row(
            "SELECT id, company_id, password_hash, token_revoked_at IS NOT NULL AS revoked
             FROM users WHERE email = :email",
            named_params! {":email": email.trim()},
            |r| {
                Ok(Credentials {
                    user_id: r.get("id")?,
                    company_id: r.get("company_id")?,
                    password_hash: r.get("password_hash")?,
                    revoked: r.get("revoked")?,
                })
            },
        )
        .optional()?)
}

pub fn password_hash(conn: &Connection, user_id: i64) -> Result<Option<String>> {
    Ok(conn
        .query_row("SELECT password_hash FROM users WHERE id = :id", named_params! {":id": user_id}, |r| {
            r.get("password_hash")
        })
        .optional()?
        .flatten())
}

/// Sets a user's password; false when the user is not the company's.
pub fn set_password(conn: &Connection, company_id: i64, user_id: i64, hash: &str) -> Result<bool> {
    let changed = conn.execute(
        "UPDATE users SET password_hash = :hash, updated_at = :now WHERE id = :id AND company_id = :company",
        named_params! {":hash": hash, ":now": now_text(), ":id": user_id, ":company": company_id},
    )?;
    Ok(changed == 1)
}

/// A new session of `user_id`, begun and last seen `now` (the server's clock, as stored).
pub fn insert_session(conn: &Connection, id_hash: &str, user_id: i64, now: &str) -> Result<i64> {
    conn.execute(
        "INSERT INTO sessions (id_hash, user_id, created_at, last_seen_at) VALUES (:hash, :user, :now, :now)",
        named_params! {":hash": id_hash, ":user": user_id, ":now": now},
    )?;
    Ok(conn.last_insert_rowid())
}

/// The user of a session last seen after `seen_after`, and when it was last seen; none for a
/// user whose access is revoked (their sessions end with the revocation: this holds if one
/// were left).
pub fn session_user(conn: &Connection, id_hash: &str, seen_after: &str) -> Result<Option<(i64, String)>> {
    Ok(conn
        .query_row(
            "SELECT s.user_id, s.last_seen_at FROM sessions s JOIN users u ON u.id = s.user_id
             WHERE s.id_hash = :hash AND s.last_seen_at > :after AND u.token_revoked_at IS NULL",
            named_params! {":hash": id_hash, ":after": seen_after},
            |r| Ok((r.get("user_id")?, r.get("last_seen_at")?)),
        )
        .optional()?)
}

pub fn touch_session(conn: &Connection, id_hash: &str, now: &str) -> Result<()> {
    conn.execute(
        "UPDATE sessions SET last_seen_at = :now WHERE id_hash = :hash",
        named_params! {":now": now, ":hash": id_hash},
    )?;
    Ok(())
}

pub fn end_session(conn: &Connection, id_hash: &str) -> Result<()> {
    conn.execute("DELETE FROM sessions WHERE id_hash = :hash", named_params! {":hash": id_hash})?;
    Ok(())
}

/// Ends every session of a user; how many there were.
pub fn end_sessions_of(conn: &Connection, user_id: i64) -> Result<usize> {
    Ok(conn.execute("DELETE FROM sessions WHERE user_id = :user", named_params! {":user": user_id})?)
}

/// Keeps `code_hash` as the user's one-time reset code until `expires_at`, in place of any other.
pub fn replace_reset_code(conn: &Connection, user_id: i64, code_hash: &str, expires_at: &str) -> Result<()> {
    conn.execute(
        "INSERT INTO password_reset_codes (user_id, code_hash, created_at, expires_at)
         VALUES (:user, :hash, :now, :expires)
         ON CONFLICT (user_id) DO UPDATE SET code_hash = excluded.code_hash,
             created_at = excluded.created_at, expires_at = excluded.expires_at",
        named_params! {":user": user_id, ":hash": code_hash, ":now": now_text(), ":expires": expires_at},
    )?;
    Ok(())
}

/// The hash of the user's reset code, while it has not expired at `now`.
pub fn reset_code(conn: &Connection, user_id: i64, now: &str) -> Result<Option<String>> {
    Ok(conn
        .query_row(
            "SELECT code_hash FROM password_reset_codes WHERE user_id = :user AND expires_at > :now",
            named_params! {":user": user_id, ":now": now},
            |r| r.get("code_hash"),
        )
        .optional()?)
}

/// The user's reset code is gone (used, or the user's access revoked).
pub fn drop_reset_code(conn: &Connection, user_id: i64) -> Result<()> {
    conn.execute("DELETE FROM password_reset_codes WHERE user_id = :user", named_params! {":user": user_id})?;
    Ok(())
}

/// Removes the sessions idle since `seen_before` or earlier.
pub fn forget_idle_sessions(conn: &Connection, seen_before: &str) -> Result<usize> {
    Ok(conn.execute(
        "DELETE FROM sessions WHERE last_seen_at <= :before",
        named_params! {":before": seen_before},
    )?)
}

/// Whether the box has its owner: a company (not the sandbox's) with a user. Until then a
/// production server prints a setup code at each start.
pub fn claimed(conn: &Connection) -> Result<bool> {
    Ok(conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM companies c JOIN users u ON u.company_id = c.id WHERE c.is_sandbox = 0)
             AS claimed",
        [],
        |r| r.get("claimed"),
    )?)
}

/// How many companies the box holds (a backup copies all of them).
pub fn company_count(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row("SELECT COUNT(*) AS companies FROM companies", [], |r| r.get("companies"))?)
}

/// Keeps a new setup code (its hash) in place of any unused one.
pub fn replace_setup_code(conn: &Connection, code_hash: &str, expires_at: &str) -> Result<()> {
    conn.execute("DELETE FROM setup_codes WHERE used_at IS NULL", [])?;
    conn.execute(
        "INSERT INTO setup_codes (code_hash, created_at, expires_at) VALUES (:hash, :now, :expires)",
        named_params! {":hash": code_hash, ":now": now_text(), ":expires": expires_at},
    )?;
    Ok(())
}

/// Whether a setup code with this hash is unused and not expired at `now`.
pub fn setup_code_valid(conn: &Connection, code_hash: &str, now: &str) -> Result<bool> {
    Ok(conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM setup_codes
             WHERE code_hash = :hash AND used_at IS NULL AND expires_at > :now) AS valid",
        named_params! {":hash": code_hash, ":now": now},
        |r| r.get("valid"),
    )?)
}

/// When the code in force expires, if one is.
pub fn setup_code_expiry(conn: &Connection, now: &str) -> Result<Option<String>> {
    Ok(conn
        .query_row(
            "SELECT MAX(expires_at) AS expires FROM setup_codes WHERE used_at IS NULL AND expires_at > :now",
            named_params! {":now": now},
            |r| r.get("expires"),
        )
        .optional()?
        .flatten())
}

/// Marks every unused code used: the box has its owner.
pub fn use_setup_codes(conn: &Connection) -> Result<()> {
    conn.execute(
        "UPDATE setup_codes SET used_at = :now WHERE used_at IS NULL",
        named_params! {":now": now_text()},
    )?;
    Ok(())
}

pub fn save_setup_business(conn: &Connection, b: &SetupBusiness) -> Result<()> {
    conn.execute(
        "INSERT INTO setup_business (id, nuis, name, address, issuer_in_vat, saved_at)
         VALUES (1, :nuis, :name, :address, :vat, :now)
         ON CONFLICT (id) DO UPDATE SET nuis = excluded.nuis, name = excluded.name,
             address = excluded.address, issuer_in_vat = excluded.issuer_in_vat, saved_at = excluded.saved_at",
        named_params! {
            ":nuis": b.nuis, ":name": b.name, ":address": b.address, ":vat": b.issuer_in_vat, ":now": now_text(),
        },
    )?;
    Ok(())
}

pub fn setup_business(conn: &Connection) -> Result<Option<SetupBusiness>> {
    Ok(conn
        .query_row("SELECT nuis, name, address, issuer_in_vat FROM setup_business WHERE id = 1", [], |r| {
            Ok(SetupBusiness {
                nuis: r.get("nuis")?,
                name: r.get("name")?,
                address: r.get("address")?,
                issuer_in_vat: r.get("issuer_in_vat")?,
            })
        })
        .optional()?)
}

pub fn clear_setup_business(conn: &Connection) -> Result<()> {
    conn.execute("DELETE FROM setup_business", [])?;
    Ok(())
}

/// The company's first user who can issue a receipt (an operator code and a fiscal device).
pub fn first_cashier(conn: &Connection, company_id: i64) -> Result<Option<i64>> {
    Ok(conn
        .query_row(
            "SELECT MIN(id) AS id FROM users
             WHERE company_id = :company AND operator_code IS NOT NULL AND tcr_code IS NOT NULL",
            named_params! {":company": company_id},
            |r| r.get("id"),
        )
        .optional()?
        .flatten())
}

/// The company's wizard steps after the owner's, read from what they made.
pub fn progress(conn: &Connection, company_id: i64) -> Result<Progress> {
    Ok(conn.query_row(
        "SELECT
             EXISTS (SELECT 1 FROM certificates WHERE company_id = :company) AS certificate,
             (SELECT COUNT(*) FROM business_units
                  WHERE company_id = :company AND business_unit_code IS NOT NULL) AS units,
             (SELECT COUNT(*) FROM fiscal_devices WHERE company_id = :company) AS devices,
             (SELECT COUNT(*) FROM users WHERE company_id = :company
                  AND operator_code IS NOT NULL AND tcr_code IS NOT NULL) AS cashiers,
             (SELECT COUNT(*) FROM invoices WHERE company_id = :company) AS receipts",
        named_params! {":company": company_id},
        |r| {
            Ok(Progress {
                certificate: r.get("certificate")?,
                units_with_code: r.get("units")?,
                devices: r.get("devices")?,
                cashiers: r.get("cashiers")?,
                receipts: r.get("receipts")?,
            })
        },
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        (dir, store)
    }

    #[test]
    fn a_new_setup_code_replaces_the_unused_one_and_expires() {
        let (_dir, store) = store();
        store
            .write_blocking(|tx| -> crate::store::Result<_> {
                replace_setup_code(tx, "a", "2030-01-01T00:00:00Z")?;
                replace_setup_code(tx, "b", "2030-01-01T00:00:00Z")
            })
            .unwrap();
        store
            .read_blocking(|conn| {
                assert!(!setup_code_valid(conn, "a", "2029-01-01T00:00:00Z")?, "replaced");
                assert!(setup_code_valid(conn, "b", "2029-01-01T00:00:00Z")?);
                assert!(!setup_code_valid(conn, "b", "2030-01-01T00:00:01Z")?, "expired");
                assert_eq!(
                    setup_code_expiry(conn, "2029-01-01T00:00:00Z")?.as_deref(),
                    Some("2030-01-01T00:00:00Z")
                );
                Ok(())
            })
            .unwrap();
        store.write_blocking(|tx| use_setup_codes(tx)).unwrap();
        let valid = store.read_blocking(|conn| setup_code_valid(conn, "b", "2029-01-01T00:00:00Z")).unwrap();
        assert!(!valid, "used");
    }

    #[test]
    fn the_business_step_is_kept_once_and_replaced() {
        let (_dir, store) = store();
        let first =
            SetupBusiness { nuis: "L41323036D".into(), name: "A".into(), address: None, issuer_in_vat: true };
        let second = SetupBusiness { name: "B".into(), issuer_in_vat: false, ..first.clone() };
        store.write_blocking(|tx| save_setup_business(tx, &first)).unwrap();
        store.write_blocking(|tx| save_setup_business(tx, &second)).unwrap();
        let kept = store.read_blocking(setup_business).unwrap().unwrap();
        assert_eq!((kept.name.as_str(), kept.issuer_in_vat), ("B", false));
        store.write_blocking(|tx| clear_setup_business(tx)).unwrap();
        assert!(store.read_blocking(setup_business).unwrap().is_none());
    }

    #[test]
    fn a_session_is_found_while_seen_after_the_cutoff() {
        let (_dir, store) = store();
        assert!(!store.read_blocking(claimed).unwrap());
        let (user, _) = store
            .write_blocking(|tx| -> crate::store::Result<_> {
                let company = crate::store::fixtures::company(tx, "L41323036D");
                let unit = crate::store::fixtures::unit(tx, company, "Shop", None);
                let user = crate::store::fixtures::user(tx, company, unit, "ana@shop.al");
                insert_session(tx, "s", user, &crate::store::now_text())?;
                touch_session(tx, "s", "2030-01-01T00:00:00Z")?;
                Ok((user, company))
            })
            .unwrap();
        assert!(store.read_blocking(claimed).unwrap());
        let found = store.read_blocking(|c| session_user(c, "s", "2029-12-31T00:00:00Z")).unwrap();
        assert_eq!(found, Some((user, "2030-01-01T00:00:00Z".to_string())));
        assert!(store.read_blocking(|c| session_user(c, "s", "2030-01-01T00:00:00Z")).unwrap().is_none());
        assert_eq!(store.write_blocking(|tx| end_sessions_of(tx, user)).unwrap(), 1);
        assert!(store.read_blocking(|c| session_user(c, "s", "2000-01-01T00:00:00Z")).unwrap().is_none());
    }

    #[test]
    fn a_revoked_users_session_and_sign_in_are_refused() {
        let (_dir, store) = store();
        let (user, company) = store
            .write_blocking(|tx| -> crate::store::Result<_> {
                let company = crate::store::fixtures::company(tx, "L41323036D");
                let unit = crate::store::fixtures::unit(tx, company, "Shop", None);
                let user = crate::store::fixtures::user(tx, company, unit, "ana@shop.al");
                insert_session(tx, "s", user, &crate::store::now_text())?;
                Ok((user, company))
            })
            .unwrap();
        let found = store.read_blocking(|c| credentials(c, " ana@shop.al ")).unwrap().unwrap();
        assert!(!found.revoked);
        assert!(store.read_blocking(|c| session_user(c, "s", "2000-01-01T00:00:00Z")).unwrap().is_some());
        store.write_blocking(|tx| crate::store::accounts::revoke_token(tx, company, user)).unwrap();
        assert!(store.read_blocking(|c| credentials(c, "ana@shop.al")).unwrap().unwrap().revoked);
        assert!(store.read_blocking(|c| session_user(c, "s", "2000-01-01T00:00:00Z")).unwrap().is_none());
    }

    #[test]
    fn a_reset_code_is_one_per_user_until_it_expires_or_goes() {
        let (_dir, store) = store();
        let user = store
            .write_blocking(|tx| -> crate::store::Result<_> {
                let company = crate::store::fixtures::company(tx, "L41323036D");
                let unit = crate::store::fixtures::unit(tx, company, "Shop", None);
                let user = crate::store::fixtures::user(tx, company, unit, "ana@shop.al");
                replace_reset_code(tx, user, "a", "2030-01-01T00:00:00Z")?;
                replace_reset_code(tx, user, "b", "2030-01-01T01:00:00Z")?;
                Ok(user)
            })
            .unwrap();
        let at = |now: &'static str| store.read_blocking(move |c| reset_code(c, user, now)).unwrap();
        assert_eq!(at("2030-01-01T00:30:00Z").as_deref(), Some("b"), "the last one printed");
        assert_eq!(at("2030-01-01T01:00:00Z"), None, "expired");
        store.write_blocking(|tx| drop_reset_code(tx, user)).unwrap();
        assert_eq!(at("2029-01-01T00:00:00Z"), None, "used");
    }
}
