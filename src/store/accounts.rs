//! Partners, applications, companies, business units, users, certificates and bank accounts.

use rusqlite::{Connection, OptionalExtension, Row, named_params};

use super::{Result, now_text};
use crate::domain::role::Role;
use arka_core::invoice::rows;

#[derive(Debug, Clone)]
pub struct Company {
    pub id: i64,
    pub nuis: String,
    pub name: String,
    pub address: Option<String>,
    pub city: Option<String>,
    pub issuer_in_vat: bool,
    pub is_sandbox: bool,
}

#[derive(Debug, Clone)]
pub struct BusinessUnit {
    pub id: i64,
    pub company_id: i64,
    pub name: String,
    pub business_unit_code: Option<String>,
    pub administrator: Option<String>,
    pub address: Option<String>,
    pub city: Option<String>,
}

#[derive(Debug, Clone)]
pub struct User {
    pub id: i64,
    pub company_id: i64,
    pub business_unit_id: Option<i64>,
    pub name: String,
    pub email: String,
    pub operator_code: Option<String>,
    pub tcr_code: Option<String>,
    pub role: Role,
}

/// Who a user token speaks for.
#[derive(Debug, Clone)]
pub struct Caller {
    pub user: User,
    pub company: Company,
    pub unit: Option<BusinessUnit>,
    /// The request's id (`X-Request-Id`), for the audit trail; none where no request is (a test).
    pub request_id: Option<String>,
    /// A person signed in to the page made the request (its session cookie), not a token: the
    /// spec's minimum intervals pace POS apps, not a person's clicks.
    pub session: bool,
}

impl Caller {
    pub fn role(&self) -> Role {
        self.user.role
    }

    /// The caller as the scope rules of `domain::role` see them.
    pub fn reader(&self) -> crate::domain::role::Reader<'_> {
        crate::domain::role::Reader {
            role: self.user.role,
            user_id: self.user.id,
            tcr_code: self.user.tcr_code.as_deref(),
        }
    }
}

/// A user as the owner's list shows them: their token by its first characters, never its hash.
#[derive(Debug, Clone)]
pub struct Listed {
    pub user: User,
    /// `None` for a token made before V22, until it is rotated.
    pub token_prefix: Option<String>,
    pub token_revoked_at: Option<String>,
    pub created_at: String,
    pub last_use: Option<TokenUse>,
}

/// When and from where a token was last used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenUse {
    pub user_id: i64,
    /// RFC 3339, UTC.
    pub at: String,
    pub ip: String,
}

#[derive(Debug, Clone)]
pub struct StoredCertificate {
    pub id: i64,
    pub subject: String,
    pub serial: String,
    pub valid_from: String,
    pub valid_to: String,
    pub cert_der: Vec<u8>,
    pub key_sealed: Vec<u8>,
}

pub use arka_core::invoice::BankAccount;

pub struct NewCompany<'a> {
    pub nuis: &'a str,
    pub name: &'a str,
    pub address: Option<&'a str>,
    pub city: Option<&'a str>,
    pub administrator: Option<&'a str>,
    pub phone: Option<&'a str>,
    pub email: Option<&'a str>,
    pub issuer_in_vat: bool,
    pub last_noncash_einvoice_number: i64,
    pub is_sandbox: bool,
    pub partner_id: Option<i64>,
}

pub struct UnitFields<'a> {
    pub name: &'a str,
    pub business_unit_code: Option<&'a str>,
    pub administrator: Option<&'a str>,
    pub address: Option<&'a str>,
    pub city: Option<&'a str>,
}

pub struct NewUser<'a> {
    pub company_id: i64,
    pub business_unit_id: Option<i64>,
    pub name: &'a str,
    pub email: &'a str,
    pub operator_code: Option<&'a str>,
    pub tcr_code: Option<&'a str>,
    pub role: Role,
    pub token_hash: &'a str,
    pub token_prefix: &'a str,
}

/// Fields of a user update; `None` leaves the stored value.
#[derive(Default)]
pub struct UserPatch<'a> {
    pub name: Option<&'a str>,
    pub business_unit_id: Option<i64>,
    pub operator_code: Option<&'a str>,
    /// `None` keeps the user's device, `Some(None)` takes it away.
    pub tcr_code: Option<Option<&'a str>>,
    pub role: Option<Role>,
}

pub struct NewBankAccount<'a> {
    pub company_id: i64,
    pub name: &'a str,
    pub holder: &'a str,
    pub iban: &'a str,
    pub swift: Option<&'a str>,
    pub currency: &'a str,
    pub notes: Option<&'a str>,
}

pub struct NewCertificate<'a> {
    pub company_id: i64,
    pub subject: &'a str,
    pub serial: &'a str,
    pub valid_from: &'a str,
    pub valid_to: &'a str,
    pub cert_der: &'a [u8],
    pub key_sealed: &'a [u8],
}

pub fn insert_partner(conn: &Connection, name: &str, token_hash: &str) -> Result<i64> {
    conn.execute(
        "INSERT INTO partners (name, token_hash, created_at) VALUES (:name, :hash, :now)",
        named_params! {":name": name, ":hash": token_hash, ":now": now_text()},
    )?;
    Ok(conn.last_insert_rowid())
}

pub fn partner_by_token(conn: &Connection, token_hash: &str) -> Result<Option<i64>> {
    Ok(conn
        .query_row(
            "SELECT id FROM partners WHERE token_hash = :hash",
            named_params! {":hash": token_hash},
            |r| r.get("id"),
        )
        .optional()?)
}

pub fn insert_app(conn: &Connection, name: &str, client_id: &str, secret_hash: &str) -> Result<i64> {
    conn.execute(
        "INSERT INTO apps (name, client_id, secret_hash, created_at) VALUES (:name, :cid, :hash, :now)",
        named_params! {":name": name, ":cid": client_id, ":hash": secret_hash, ":now": now_text()},
    )?;
    Ok(conn.last_insert_rowid())
}

pub fn app_secret_hash(conn: &Connection, client_id: &str) -> Result<Option<String>> {
    Ok(conn
        .query_row(
            "SELECT secret_hash FROM apps WHERE client_id = :cid",
            named_params! {":cid": client_id},
            |r| r.get("secret_hash"),
        )
        .optional()?)
}

// The columns of companies (c), business units (b) and users (u) are named after their table, so
// that one row can carry all three (`caller_where`).
const COMPANY_COLUMNS: &str = "c.id AS c_id, c.nuis AS c_nuis, c.name AS c_name, c.address AS c_address,
    c.city AS c_city, c.issuer_in_vat AS c_issuer_in_vat, c.is_sandbox AS c_is_sandbox";

fn company_from(r: &Row) -> rusqlite::Result<Company> {
    Ok(Company {
        id: r.get("c_id")?,
        nuis: r.get("c_nuis")?,
        name: r.get("c_name")?,
        address: r.get("c_address")?,
        city: r.get("c_city")?,
        issuer_in_vat: r.get("c_issuer_in_vat")?,
        is_sandbox: r.get("c_is_sandbox")?,
    })
}

pub fn insert_company(conn: &Connection, c: &NewCompany) -> Result<i64> {
    conn.execute(
        "INSERT INTO companies (nuis, name, address, city, administrator, phone, email, issuer_in_vat,
             last_noncash_einvoice_number, is_sandbox, partner_id, created_at)
         VALUES (:nuis, :name, :address, :city, :admin, :phone, :email, :vat, :last, :sandbox, :partner, :now)",
        named_params! {
            ":nuis": c.nuis, ":name": c.name, ":address": c.address, ":city": c.city,
            ":admin": c.administrator, ":phone": c.phone, ":email": c.email,
            ":vat": c.issuer_in_vat, ":last": c.last_noncash_einvoice_number,
            ":sandbox": c.is_sandbox, ":partner": c.partner_id, ":now": now_text(),
        },
    )?;
    Ok(conn.last_insert_rowid())
}

/// Whether a company other than the sandbox's is registered under `nuis` (any case).
pub fn nuis_registered(conn: &Connection, nuis: &str) -> Result<bool> {
    Ok(conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM companies WHERE nuis = upper(:nuis) AND is_sandbox = 0) AS registered",
        named_params! {":nuis": nuis},
        |r| r.get("registered"),
    )?)
}

pub fn sandbox_company(conn: &Connection) -> Result<Option<Company>> {
    Ok(conn
        .query_row(
            &format!(
                "SELECT {COMPANY_COLUMNS} FROM companies c WHERE c.is_sandbox = 1 ORDER BY c.id LIMIT 1"
            ),
            [],
            company_from,
        )
        .optional()?)
}

pub fn company(conn: &Connection, id: i64) -> Result<Option<Company>> {
    Ok(conn
        .query_row(
            &format!("SELECT {COMPANY_COLUMNS} FROM companies c WHERE c.id = :id"),
            named_params! {":id": id},
            company_from,
        )
        .optional()?)
}

const UNIT_COLUMNS: &str = "b.id AS b_id, b.company_id AS b_company_id, b.name AS b_name,
    b.business_unit_code AS b_business_unit_code, b.administrator AS b_administrator, b.address AS b_address,
    b.city AS b_city";

fn unit_from(r: &Row) -> rusqlite::Result<BusinessUnit> {
    Ok(BusinessUnit {
        id: r.get("b_id")?,
        company_id: r.get("b_company_id")?,
        name: r.get("b_name")?,
        business_unit_code: r.get("b_business_unit_code")?,
        administrator: r.get("b_administrator")?,
        address: r.get("b_address")?,
        city: r.get("b_city")?,
    })
}

pub fn insert_unit(conn: &Connection, company_id: i64, u: &UnitFields) -> Result<i64> {
    let now = now_text();
    conn.execute(
        "INSERT INTO business_units (company_id, name, business_unit_code, administrator, address, city,
             created_at, updated_at)
         VALUES (:company, :name, :code, :admin, :address, :city, :now, :now)",
        named_params! {
            ":company": company_id, ":name": u.name, ":code": u.business_unit_code,
            ":admin": u.administrator, ":address": u.address, ":city": u.city, ":now": now,
        },
    )?;
    Ok(conn.last_insert_rowid())
}

/// Replaces a unit's fields; false when the unit is not the company's.
pub fn update_unit(conn: &Connection, company_id: i64, id: i64, u: &UnitFields) -> Result<bool> {
    let changed = conn.execute(
        "UPDATE business_units SET name = :name, business_unit_code = :code, administrator = :admin,
             address = :address, city = :city, updated_at = :now
         WHERE id = :id AND company_id = :company",
        named_params! {
            ":name": u.name, ":code": u.business_unit_code, ":admin": u.administrator,
            ":address": u.address, ":city": u.city, ":now": now_text(), ":id": id, ":company": company_id,
        },
    )?;
    Ok(changed == 1)
}

pub fn unit(conn: &Connection, company_id: i64, id: i64) -> Result<Option<BusinessUnit>> {
    Ok(conn
        .query_row(
            &format!(
                "SELECT {UNIT_COLUMNS} FROM business_units b WHERE b.id = :id AND b.company_id = :company"
            ),
            named_params! {":id": id, ":company": company_id},
            unit_from,
        )
        .optional()?)
}

const USER_COLUMNS: &str =
    "u.id AS u_id, u.company_id AS u_company_id, u.business_unit_id AS u_business_unit_id,
    u.name AS u_name, u.email AS u_email, u.operator_code AS u_operator_code, u.tcr_code AS u_tcr_code,
    u.role AS u_role";

fn user_from(r: &Row) -> rusqlite::Result<User> {
    Ok(User {
        id: r.get("u_id")?,
        company_id: r.get("u_company_id")?,
        business_unit_id: r.get("u_business_unit_id")?,
        name: r.get("u_name")?,
        email: r.get("u_email")?,
        operator_code: r.get("u_operator_code")?,
        tcr_code: r.get("u_tcr_code")?,
        role: r.get("u_role")?,
    })
}

pub fn email_in_use(conn: &Connection, email: &str) -> Result<bool> {
    Ok(conn
        .query_row("SELECT 1 FROM users WHERE email = :email", named_params! {":email": email}, |_| Ok(()))
        .optional()?
        .is_some())
}

pub fn insert_user(conn: &Connection, u: &NewUser) -> Result<i64> {
    let now = now_text();
    conn.execute(
        "INSERT INTO users (company_id, business_unit_id, name, email, operator_code, tcr_code, role,
             token_hash, token_prefix, created_at, updated_at)
         VALUES (:company, :unit, :name, :email, :op, :tcr, :role, :hash, :prefix, :now, :now)",
        named_params! {
            ":company": u.company_id, ":unit": u.business_unit_id, ":name": u.name, ":email": u.email,
            ":op": u.operator_code, ":tcr": u.tcr_code, ":role": u.role, ":hash": u.token_hash,
            ":prefix": u.token_prefix, ":now": now,
        },
    )?;
    Ok(conn.last_insert_rowid())
}

/// Applies the fields present in `p`; false when the user is not the company's.
pub fn update_user(conn: &Connection, company_id: i64, id: i64, p: &UserPatch) -> Result<bool> {
    let changed = conn.execute(
        "UPDATE users SET
             name = COALESCE(:name, name),
             business_unit_id = COALESCE(:unit, business_unit_id),
             operator_code = COALESCE(:op, operator_code),
             tcr_code = CASE WHEN :set_tcr THEN :tcr ELSE tcr_code END,
             role = COALESCE(:role, role),
             updated_at = :now
         WHERE id = :id AND company_id = :company",
        named_params! {
            ":name": p.name, ":unit": p.business_unit_id, ":op": p.operator_code,
            ":set_tcr": p.tcr_code.is_some(), ":tcr": p.tcr_code.flatten(), ":role": p.role,
            ":now": now_text(), ":id": id, ":company": company_id,
        },
    )?;
    Ok(changed == 1)
}

pub fn user(conn: &Connection, company_id: i64, id: i64) -> Result<Option<User>> {
    Ok(conn
        .query_row(
            &format!("SELECT {USER_COLUMNS} FROM users u WHERE u.id = :id AND u.company_id = :company"),
            named_params! {":id": id, ":company": company_id},
            user_from,
        )
        .optional()?)
}

/// The company's business units, in the order they were made.
pub fn units_of(conn: &Connection, company_id: i64) -> Result<Vec<BusinessUnit>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {UNIT_COLUMNS} FROM business_units b WHERE b.company_id = :company ORDER BY b.id"
    ))?;
    let rows = stmt.query_map(named_params! {":company": company_id}, unit_from)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// The company's users, in the order they were made (the owner first).
pub fn users_of(conn: &Connection, company_id: i64) -> Result<Vec<User>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {USER_COLUMNS} FROM users u WHERE u.company_id = :company ORDER BY u.id"
    ))?;
    let rows = stmt.query_map(named_params! {":company": company_id}, user_from)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// How many owners the company has, and how many of them have a token that works.
pub fn owners(conn: &Connection, company_id: i64) -> Result<(u32, u32)> {
    Ok(conn.query_row(
        "SELECT COUNT(*) AS owners, COUNT(*) FILTER (WHERE token_revoked_at IS NULL) AS working
         FROM users WHERE company_id = :company AND role = 'owner'",
        named_params! {":company": company_id},
        |r| Ok((r.get("owners")?, r.get("working")?)),
    )?)
}

/// Gives the user a new token (by its hash and first characters); the old one stops working
/// with this write. False when the user is not the company's.
pub fn set_token(
    conn: &Connection,
    company_id: i64,
    id: i64,
    token_hash: &str,
    prefix: &str,
) -> Result<bool> {
    let changed = conn.execute(
        "UPDATE users SET token_hash = :hash, token_prefix = :prefix, token_revoked_at = NULL, updated_at = :now
         WHERE id = :id AND company_id = :company",
        named_params! {":hash": token_hash, ":prefix": prefix, ":now": now_text(), ":id": id, ":company": company_id},
    )?;
    Ok(changed == 1)
}

/// Takes the user's token away: no token hashes to `revoked:<id>`. False when the user is not
/// the company's.
pub fn revoke_token(conn: &Connection, company_id: i64, id: i64) -> Result<bool> {
    let now = now_text();
    let changed = conn.execute(
        "UPDATE users SET token_hash = 'revoked:' || id, token_revoked_at = COALESCE(token_revoked_at, :now),
             updated_at = :now
         WHERE id = :id AND company_id = :company",
        named_params! {":now": now, ":id": id, ":company": company_id},
    )?;
    Ok(changed == 1)
}

/// Whether the user's token was revoked (and not given a new one since).
pub fn token_revoked(conn: &Connection, company_id: i64, id: i64) -> Result<bool> {
    Ok(conn
        .query_row(
            "SELECT token_revoked_at IS NOT NULL AS revoked FROM users WHERE id = :id AND company_id = :company",
            named_params! {":id": id, ":company": company_id},
            |r| r.get("revoked"),
        )
        .optional()?
        .unwrap_or(false))
}

/// The company's users, owners first, with their tokens' prefixes and last uses.
pub fn list_users(conn: &Connection, company_id: i64) -> Result<Vec<Listed>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {USER_COLUMNS}, u.token_prefix, u.token_revoked_at, u.created_at,
                t.last_used_at, t.last_used_ip
         FROM users u LEFT JOIN user_token_uses t ON t.user_id = u.id
         WHERE u.company_id = :company
         ORDER BY CASE u.role WHEN 'owner' THEN 0 WHEN 'manager' THEN 1 ELSE 2 END, u.id"
    ))?;
    let rows = stmt.query_map(named_params! {":company": company_id}, |r| {
        let user = user_from(r)?;
        let at: Option<String> = r.get("last_used_at")?;
        let ip: Option<String> = r.get("last_used_ip")?;
        Ok(Listed {
            last_use: at.zip(ip).map(|(at, ip)| TokenUse { user_id: user.id, at, ip }),
            user,
            token_prefix: r.get("token_prefix")?,
            token_revoked_at: r.get("token_revoked_at")?,
            created_at: r.get("created_at")?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// Keeps the newest use of each token in `uses`; an older one than stored changes nothing.
pub fn record_token_uses(conn: &Connection, uses: &[TokenUse]) -> Result<()> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO user_token_uses (user_id, last_used_at, last_used_ip)
         SELECT :user, :at, :ip WHERE EXISTS (SELECT 1 FROM users WHERE id = :user)
         ON CONFLICT (user_id) DO UPDATE SET last_used_at = excluded.last_used_at, last_used_ip = excluded.last_used_ip
         WHERE excluded.last_used_at > user_token_uses.last_used_at",
    )?;
    for u in uses {
        stmt.execute(named_params! {":user": u.user_id, ":at": u.at, ":ip": u.ip})?;
    }
    Ok(())
}

/// The user, company and business unit of the user row matching `condition`.
fn caller_where(
    conn: &Connection,
    condition: &str,
    params: &[(&str, &dyn rusqlite::ToSql)],
) -> Result<Option<Caller>> {
    let sql = format!(
        "SELECT {USER_COLUMNS}, {COMPANY_COLUMNS}, {UNIT_COLUMNS}
         FROM users u
         JOIN companies c ON c.id = u.company_id
         LEFT JOIN business_units b ON b.id = u.business_unit_id
         WHERE {condition}"
    );
    Ok(conn
        .query_row(&sql, params, |r| {
            let unit_id: Option<i64> = r.get("b_id")?;
            Ok(Caller {
                user: user_from(r)?,
                company: company_from(r)?,
                unit: match unit_id {
                    Some(_) => Some(unit_from(r)?),
                    None => None,
                },
                request_id: None,
                session: false,
            })
        })
        .optional()?)
}

/// Resolves a user token (by its hash) to the user, company and business unit.
pub fn caller_by_token(conn: &Connection, token_hash: &str) -> Result<Option<Caller>> {
    caller_where(conn, "u.token_hash = :hash", named_params! {":hash": token_hash})
}

/// The caller a signed-in user's session speaks as: the same as the user's token.
pub fn caller_by_user(conn: &Connection, user_id: i64) -> Result<Option<Caller>> {
    caller_where(conn, "u.id = :id", named_params! {":id": user_id})
}

pub fn insert_certificate(conn: &Connection, c: &NewCertificate) -> Result<i64> {
    conn.execute(
        "INSERT INTO certificates (company_id, subject, serial, valid_from, valid_to, cert_der, key_sealed, created_at)
         VALUES (:company, :subject, :serial, :from, :to, :der, :key, :now)",
        named_params! {
            ":company": c.company_id, ":subject": c.subject, ":serial": c.serial, ":from": c.valid_from,
            ":to": c.valid_to, ":der": c.cert_der, ":key": c.key_sealed, ":now": now_text(),
        },
    )?;
    Ok(conn.last_insert_rowid())
}

/// The certificate the company signed with at `at` (stored time text): the newest uploaded by
/// then, else its first.
pub fn certificate_at(conn: &Connection, company_id: i64, at: &str) -> Result<Option<StoredCertificate>> {
    Ok(conn
        .query_row(
            "SELECT id, subject, serial, valid_from, valid_to, cert_der, key_sealed FROM certificates
             WHERE company_id = :company
             ORDER BY created_at <= :at DESC, CASE WHEN created_at <= :at THEN -id ELSE id END LIMIT 1",
            named_params! {":company": company_id, ":at": at},
            certificate_from,
        )
        .optional()?)
}

fn certificate_from(r: &rusqlite::Row) -> rusqlite::Result<StoredCertificate> {
    Ok(StoredCertificate {
        id: r.get("id")?,
        subject: r.get("subject")?,
        serial: r.get("serial")?,
        valid_from: r.get("valid_from")?,
        valid_to: r.get("valid_to")?,
        cert_der: r.get("cert_der")?,
        key_sealed: r.get("key_sealed")?,
    })
}

/// The company's newest certificate: the one it signs with.
pub fn current_certificate(conn: &Connection, company_id: i64) -> Result<Option<StoredCertificate>> {
    Ok(conn
        .query_row(
            "SELECT id, subject, serial, valid_from, valid_to, cert_der, key_sealed FROM certificates
             WHERE company_id = :company ORDER BY id DESC LIMIT 1",
            named_params! {":company": company_id},
            certificate_from,
        )
        .optional()?)
}

pub fn insert_bank_account(conn: &Connection, b: &NewBankAccount) -> Result<i64> {
    conn.execute(
        "INSERT INTO bank_accounts (company_id, name, holder, iban, swift, currency, notes, created_at)
         VALUES (:company, :name, :holder, :iban, :swift, :currency, :notes, :now)",
        named_params! {
            ":company": b.company_id, ":name": b.name, ":holder": b.holder, ":iban": b.iban,
            ":swift": b.swift, ":currency": b.currency, ":notes": b.notes, ":now": now_text(),
        },
    )?;
    Ok(conn.last_insert_rowid())
}

pub fn bank_account(conn: &Connection, company_id: i64, id: i64) -> Result<Option<BankAccount>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, name, holder, iban, swift, currency, notes FROM bank_accounts
         WHERE id = :id AND company_id = :company",
    )?;
    Ok(super::mapped(&mut stmt, named_params! {":id": id, ":company": company_id}, |r| {
        rows::bank_account(r)
    })?
    .pop())
}

/// A page of the company's bank accounts, newest first, and how many there are in all.
pub fn bank_accounts(
    conn: &Connection,
    company_id: i64,
    limit: i64,
    offset: i64,
) -> Result<(Vec<BankAccount>, i64)> {
    let total = conn.query_row(
        "SELECT COUNT(*) AS accounts FROM bank_accounts WHERE company_id = :company",
        named_params! {":company": company_id},
        |r| r.get("accounts"),
    )?;
    let mut stmt = conn.prepare(
        "SELECT id, name, holder, iban, swift, currency, notes FROM bank_accounts
         WHERE company_id = :company ORDER BY id DESC LIMIT :limit OFFSET :offset",
    )?;
    let items = super::mapped(
        &mut stmt,
        named_params! {":company": company_id, ":limit": limit, ":offset": offset},
        |r| rows::bank_account(r),
    )?;
    Ok((items, total))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Error, Store, fixtures};

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        (dir, store)
    }

    fn new_user<'a>(company_id: i64, email: &'a str, role: Role) -> NewUser<'a> {
        NewUser {
            company_id,
            business_unit_id: None,
            name: "Blerta",
            email,
            operator_code: Some("ab123cd456"),
            tcr_code: None,
            role,
            token_hash: email,
            token_prefix: "arka_u_b",
        }
    }

    #[test]
    fn partners_and_apps_are_found_by_their_hashes_and_a_clash_is_a_duplicate() {
        let (_dir, store) = store();
        store
            .write_blocking(|tx| -> Result<_> {
                let partner = insert_partner(tx, "Reseller", "hash-p")?;
                assert_eq!(partner_by_token(tx, "hash-p")?, Some(partner));
                assert_eq!(partner_by_token(tx, "hash-q")?, None);
                insert_app(tx, "POS", "client-1", "secret-hash")?;
                assert_eq!(app_secret_hash(tx, "client-1")?.as_deref(), Some("secret-hash"));
                assert_eq!(app_secret_hash(tx, "client-2")?, None);
                assert!(matches!(insert_app(tx, "POS 2", "client-1", "other"), Err(Error::Duplicate(_))));
                assert!(matches!(insert_partner(tx, "Again", "hash-p"), Err(Error::Duplicate(_))));
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn a_company_reads_back_and_the_sandbox_does_not_count_as_registered() {
        let (_dir, store) = store();
        store
            .write_blocking(|tx| -> Result<_> {
                assert!(sandbox_company(tx)?.is_none());
                let shop = fixtures::company(tx, "L91234567A");
                let sandbox = insert_company(
                    tx,
                    &NewCompany {
                        nuis: "M00000000S",
                        name: "Sandbox",
                        address: Some("Rruga 1"),
                        city: Some("Tiranë"),
                        administrator: None,
                        phone: None,
                        email: None,
                        issuer_in_vat: false,
                        last_noncash_einvoice_number: 0,
                        is_sandbox: true,
                        partner_id: None,
                    },
                )?;
                let read = company(tx, shop)?.unwrap();
                assert_eq!((read.id, read.nuis.as_str(), read.name.as_str()), (shop, "L91234567A", "Shop"));
                assert!(read.issuer_in_vat && !read.is_sandbox);
                let s = sandbox_company(tx)?.unwrap();
                assert_eq!((s.id, s.city.as_deref(), s.issuer_in_vat), (sandbox, Some("Tiranë"), false));
                assert!(nuis_registered(tx, "l91234567a")?, "any case");
                assert!(!nuis_registered(tx, "M00000000S")?, "the sandbox's NUIS is free");
                assert!(company(tx, sandbox + 1)?.is_none());
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn units_are_the_companys_own_and_listed_in_the_order_they_were_made() {
        let (_dir, store) = store();
        store
            .write_blocking(|tx| -> Result<_> {
                let mine = fixtures::company(tx, "L1");
                let theirs = fixtures::company(tx, "L2");
                let first = fixtures::unit(tx, mine, "Qendra", Some("ab123cd456"));
                let second = fixtures::unit(tx, mine, "Durrës", None);
                let other = fixtures::unit(tx, theirs, "Vlorë", None);
                let fields = UnitFields {
                    name: "Qendra e re",
                    business_unit_code: Some("zz999zz999"),
                    administrator: Some("Ana"),
                    address: Some("Rruga 2"),
                    city: Some("Tiranë"),
                };
                assert!(update_unit(tx, mine, first, &fields)?);
                assert!(!update_unit(tx, mine, other, &fields)?, "another company's unit");
                let read = unit(tx, mine, first)?.unwrap();
                assert_eq!(
                    (read.name.as_str(), read.business_unit_code.as_deref(), read.administrator.as_deref()),
                    ("Qendra e re", Some("zz999zz999"), Some("Ana"))
                );
                assert_eq!(
                    (read.company_id, read.address.as_deref(), read.city.as_deref()),
                    (mine, Some("Rruga 2"), Some("Tiranë"))
                );
                assert!(unit(tx, mine, other)?.is_none());
                let ids: Vec<i64> = units_of(tx, mine)?.iter().map(|u| u.id).collect();
                assert_eq!(ids, [first, second]);
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn a_user_is_patched_field_by_field_and_an_email_is_taken_once_in_any_case() {
        let (_dir, store) = store();
        store
            .write_blocking(|tx| -> Result<_> {
                let mine = fixtures::company(tx, "L1");
                let theirs = fixtures::company(tx, "L2");
                let unit = fixtures::unit(tx, mine, "Qendra", None);
                let owner = insert_user(tx, &new_user(mine, "owner@shop.al", Role::Owner))?;
                let cashier = insert_user(tx, &new_user(mine, "cashier@shop.al", Role::Cashier))?;
                assert!(email_in_use(tx, "owner@shop.al")?);
                assert!(!email_in_use(tx, "nobody@shop.al")?);
                assert!(matches!(
                    insert_user(
                        tx,
                        &NewUser { token_hash: "other", ..new_user(theirs, "OWNER@shop.al", Role::Owner) }
                    ),
                    Err(Error::Duplicate(_))
                ));
                let patch = UserPatch {
                    name: Some("Drita"),
                    business_unit_id: Some(unit),
                    tcr_code: Some(Some("tc111tc111")),
                    ..UserPatch::default()
                };
                assert!(update_user(tx, mine, cashier, &patch)?);
                assert!(!update_user(tx, theirs, cashier, &patch)?, "not the other company's");
                let read = user(tx, mine, cashier)?.unwrap();
                assert_eq!(
                    (read.name.as_str(), read.business_unit_id, read.tcr_code.as_deref()),
                    ("Drita", Some(unit), Some("tc111tc111"))
                );
                assert_eq!(
                    (read.operator_code.as_deref(), read.role),
                    (Some("ab123cd456"), Role::Cashier),
                    "kept"
                );
                let away = UserPatch { tcr_code: Some(None), ..UserPatch::default() };
                assert!(update_user(tx, mine, cashier, &away)?);
                assert_eq!(user(tx, mine, cashier)?.unwrap().tcr_code, None);
                assert!(user(tx, theirs, cashier)?.is_none());
                let ids: Vec<i64> = users_of(tx, mine)?.iter().map(|u| u.id).collect();
                assert_eq!(ids, [owner, cashier]);
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn a_revoked_token_finds_no_caller_until_a_new_one_is_set() {
        let (_dir, store) = store();
        store
            .write_blocking(|tx| -> Result<_> {
                let mine = fixtures::company(tx, "L1");
                let unit = fixtures::unit(tx, mine, "Qendra", Some("ab123cd456"));
                let owner = fixtures::user(tx, mine, unit, "owner@shop.al");
                let second = insert_user(tx, &new_user(mine, "second@shop.al", Role::Owner))?;
                assert_eq!(owners(tx, mine)?, (2, 2));
                let caller = caller_by_token(tx, "owner@shop.al")?.unwrap();
                assert_eq!(
                    (caller.user.id, caller.company.id, caller.company.nuis.as_str()),
                    (owner, mine, "L1")
                );
                assert_eq!(caller.unit.map(|u| (u.id, u.name)), Some((unit, "Qendra".to_string())));
                let unitless = caller_by_user(tx, second)?.unwrap();
                assert_eq!((unitless.user.email.as_str(), unitless.unit.is_none()), ("second@shop.al", true));
                assert!(revoke_token(tx, mine, second)?);
                assert!(token_revoked(tx, mine, second)?);
                assert!(caller_by_token(tx, "second@shop.al")?.is_none());
                assert_eq!(owners(tx, mine)?, (2, 1), "two owners, one token that works");
                assert!(set_token(tx, mine, second, "new-hash", "arka_u_n")?);
                assert!(!token_revoked(tx, mine, second)?);
                assert_eq!(caller_by_token(tx, "new-hash")?.map(|c| c.user.id), Some(second));
                assert!(!revoke_token(tx, mine + 1, second)?, "not another company's");
                assert!(!set_token(tx, mine + 1, second, "x", "y")?);
                assert!(!token_revoked(tx, mine, second + 1)?, "an unknown user is not revoked");
                assert!(caller_by_user(tx, second + 1)?.is_none());
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn the_people_list_puts_owners_first_with_each_tokens_newest_use() {
        let (_dir, store) = store();
        store
            .write_blocking(|tx| -> Result<_> {
                let mine = fixtures::company(tx, "L1");
                let cashier = insert_user(tx, &new_user(mine, "cashier@shop.al", Role::Cashier))?;
                let manager = insert_user(tx, &new_user(mine, "manager@shop.al", Role::Manager))?;
                let owner = insert_user(tx, &new_user(mine, "owner@shop.al", Role::Owner))?;
                let uses = |at: &str, ip: &str| TokenUse { user_id: cashier, at: at.into(), ip: ip.into() };
                record_token_uses(tx, &[uses("2026-11-20T10:00:00Z", "10.0.0.1")])?;
                record_token_uses(tx, &[uses("2026-11-21T10:00:00Z", "10.0.0.2")])?;
                record_token_uses(tx, &[uses("2026-11-19T10:00:00Z", "10.0.0.3")])?;
                let ghost =
                    TokenUse { user_id: owner + 100, at: "2026-11-21T10:00:00Z".into(), ip: "x".into() };
                record_token_uses(tx, &[ghost])?;
                revoke_token(tx, mine, manager)?;
                let listed = list_users(tx, mine)?;
                let order: Vec<i64> = listed.iter().map(|l| l.user.id).collect();
                assert_eq!(order, [owner, manager, cashier]);
                assert_eq!(
                    listed[2].last_use,
                    Some(uses("2026-11-21T10:00:00Z", "10.0.0.2")),
                    "an older use changes nothing"
                );
                assert_eq!(listed[0].last_use, None);
                assert_eq!(listed[0].token_prefix.as_deref(), Some("arka_u_b"));
                assert!(listed[1].token_revoked_at.is_some() && listed[0].token_revoked_at.is_none());
                assert!(!listed[0].created_at.is_empty());
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn the_newest_certificate_signs_and_bank_accounts_page_newest_first() {
        let (_dir, store) = store();
        store
            .write_blocking(|tx| -> Result<_> {
                let mine = fixtures::company(tx, "L1");
                assert!(current_certificate(tx, mine)?.is_none());
                let cert = |serial: &'static str| NewCertificate {
                    company_id: mine,
                    subject: "CN=Shop",
                    serial,
                    valid_from: "2026-01-01T00:00:00Z",
                    valid_to: "2027-01-01T00:00:00Z",
                    cert_der: b"der",
                    key_sealed: b"sealed",
                };
                insert_certificate(tx, &cert("01"))?;
                let newest = insert_certificate(tx, &cert("02"))?;
                let current = current_certificate(tx, mine)?.unwrap();
                assert_eq!(
                    (current.id, current.serial.as_str(), current.subject.as_str()),
                    (newest, "02", "CN=Shop")
                );
                assert_eq!(
                    (current.cert_der.as_slice(), current.key_sealed.as_slice()),
                    (&b"der"[..], &b"sealed"[..])
                );
                assert_eq!(
                    (current.valid_from.as_str(), current.valid_to.as_str()),
                    ("2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z")
                );
                let account = |name: &'static str| NewBankAccount {
                    company_id: mine,
                    name,
                    holder: "Shop shpk",
                    iban: "AL47212110090000000235698741",
                    swift: Some("BKALALTR"),
                    currency: "ALL",
                    notes: None,
                };
                let ids: Vec<i64> = ["A", "B", "C"]
                    .into_iter()
                    .map(|n| insert_bank_account(tx, &account(n)))
                    .collect::<Result<_>>()?;
                let (page, total) = bank_accounts(tx, mine, 2, 0)?;
                assert_eq!(total, 3);
                assert_eq!(page.iter().map(|b| b.id).collect::<Vec<_>>(), [ids[2], ids[1]], "newest first");
                let (rest, _) = bank_accounts(tx, mine, 2, 2)?;
                assert_eq!(rest.iter().map(|b| b.name.as_str()).collect::<Vec<_>>(), ["A"]);
                let read = bank_account(tx, mine, ids[0])?.unwrap();
                assert_eq!(
                    (read.holder.as_str(), read.swift.as_deref(), read.notes),
                    ("Shop shpk", Some("BKALALTR"), None)
                );
                assert_eq!(
                    (read.iban.as_str(), read.currency.as_str()),
                    ("AL47212110090000000235698741", "ALL")
                );
                assert!(bank_account(tx, mine + 1, ids[0])?.is_none(), "not another company's");
                assert_eq!(bank_accounts(tx, mine + 1, 10, 0)?.1, 0);
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn an_upgraded_database_makes_each_companys_first_user_its_owner_and_the_others_managers() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE companies (id INTEGER PRIMARY KEY);
             CREATE TABLE users (id INTEGER PRIMARY KEY, company_id INTEGER NOT NULL REFERENCES companies(id),
                                 token_hash TEXT NOT NULL UNIQUE);
             INSERT INTO companies (id) VALUES (1), (2);
             INSERT INTO users (id, company_id, token_hash) VALUES (1, 1, 'a'), (2, 1, 'b'), (3, 2, 'c'), (4, 1, 'd'), (5, 2, 'e');",
        )
        .unwrap();
        conn.execute_batch(include_str!("../../migrations/V22__roles.sql")).unwrap();
        let roles: Vec<Role> = conn
            .prepare("SELECT role FROM users ORDER BY id")
            .unwrap()
            .query_map([], |r| r.get("role"))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(roles, [Role::Owner, Role::Manager, Role::Owner, Role::Manager, Role::Manager]);
        assert_eq!(owners(&conn, 1).unwrap(), (1, 1));
        let unset: i64 = conn
            .query_row("SELECT COUNT(*) AS unset FROM users WHERE token_prefix IS NULL", [], |r| {
                r.get("unset")
            })
            .unwrap();
        assert_eq!(unset, 5, "an old token's prefix is unknown");
        assert!(
            conn.execute("UPDATE users SET role = 'admin' WHERE id = 1", []).is_err(),
            "three roles only"
        );
    }
}
