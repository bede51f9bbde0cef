//! Partners, applications, companies, business units, users, certificates and bank accounts.

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};
use rusqlite::{Connection, OptionalExtension, Row, named_params};

use super::{Result, now_text};
use crate::domain::role::Role;

impl ToSql for Role {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.as_str()))
    }
}

impl FromSql for Role {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        let text = value.as_str()?;
        Role::parse(text).ok_or_else(|| FromSqlError::Other(format!("unknown role `{text}`").into()))
    }
}

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

#[derive(Debug, Clone)]
pub struct BankAccount {
    pub id: i64,
    pub name: String,
    pub holder: String,
    pub iban: String,
    pub swift: Option<String>,
    pub currency: String,
    pub notes: Option<String>,
}

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
            |r| r.get(0),
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
            |r| r.get(0),
        )
        .optional()?)
}

const COMPANY_COLUMNS: &str = "c.id, c.nuis, c.name, c.address, c.city, c.issuer_in_vat, c.is_sandbox";

fn company_from(r: &Row, at: usize) -> rusqlite::Result<Company> {
    Ok(Company {
        id: r.get(at)?,
        nuis: r.get(at + 1)?,
        name: r.get(at + 2)?,
        address: r.get(at + 3)?,
        city: r.get(at + 4)?,
        issuer_in_vat: r.get(at + 5)?,
        is_sandbox: r.get(at + 6)?,
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
        "SELECT EXISTS (SELECT 1 FROM companies WHERE nuis = upper(:nuis) AND is_sandbox = 0)",
        named_params! {":nuis": nuis},
        |r| r.get(0),
    )?)
}

pub fn sandbox_company(conn: &Connection) -> Result<Option<Company>> {
    Ok(conn
        .query_row(
            &format!(
                "SELECT {COMPANY_COLUMNS} FROM companies c WHERE c.is_sandbox = 1 ORDER BY c.id LIMIT 1"
            ),
            [],
            |r| company_from(r, 0),
        )
        .optional()?)
}

pub fn company(conn: &Connection, id: i64) -> Result<Option<Company>> {
    Ok(conn
        .query_row(
            &format!("SELECT {COMPANY_COLUMNS} FROM companies c WHERE c.id = :id"),
            named_params! {":id": id},
            |r| company_from(r, 0),
        )
        .optional()?)
}

const UNIT_COLUMNS: &str =
    "b.id, b.company_id, b.name, b.business_unit_code, b.administrator, b.address, b.city";

fn unit_from(r: &Row, at: usize) -> rusqlite::Result<BusinessUnit> {
    Ok(BusinessUnit {
        id: r.get(at)?,
        company_id: r.get(at + 1)?,
        name: r.get(at + 2)?,
        business_unit_code: r.get(at + 3)?,
        administrator: r.get(at + 4)?,
        address: r.get(at + 5)?,
        city: r.get(at + 6)?,
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
            |r| unit_from(r, 0),
        )
        .optional()?)
}

const USER_COLUMNS: &str =
    "u.id, u.company_id, u.business_unit_id, u.name, u.email, u.operator_code, u.tcr_code, u.role";
/// How many columns `USER_COLUMNS` names.
const USER_WIDTH: usize = 8;

fn user_from(r: &Row, at: usize) -> rusqlite::Result<User> {
    Ok(User {
        id: r.get(at)?,
        company_id: r.get(at + 1)?,
        business_unit_id: r.get(at + 2)?,
        name: r.get(at + 3)?,
        email: r.get(at + 4)?,
        operator_code: r.get(at + 5)?,
        tcr_code: r.get(at + 6)?,
        role: r.get(at + 7)?,
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
            |r| user_from(r, 0),
        )
        .optional()?)
}

/// The company's business units, in the order they were made.
pub fn units_of(conn: &Connection, company_id: i64) -> Result<Vec<BusinessUnit>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {UNIT_COLUMNS} FROM business_units b WHERE b.company_id = :company ORDER BY b.id"
    ))?;
    let rows = stmt.query_map(named_params! {":company": company_id}, |r| unit_from(r, 0))?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// The company's users, in the order they were made (the owner first).
pub fn users_of(conn: &Connection, company_id: i64) -> Result<Vec<User>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {USER_COLUMNS} FROM users u WHERE u.company_id = :company ORDER BY u.id"
    ))?;
    let rows = stmt.query_map(named_params! {":company": company_id}, |r| user_from(r, 0))?;
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
            "SELECT token_revoked_at IS NOT NULL FROM users WHERE id = :id AND company_id = :company",
            named_params! {":id": id, ":company": company_id},
            |r| r.get(0),
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
        let user = user_from(r, 0)?;
        let at: Option<String> = r.get(USER_WIDTH + 3)?;
        let ip: Option<String> = r.get(USER_WIDTH + 4)?;
        Ok(Listed {
            last_use: at.zip(ip).map(|(at, ip)| TokenUse { user_id: user.id, at, ip }),
            user,
            token_prefix: r.get(USER_WIDTH)?,
            token_revoked_at: r.get(USER_WIDTH + 1)?,
            created_at: r.get(USER_WIDTH + 2)?,
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
            let unit_at = USER_WIDTH + 7;
            let unit_id: Option<i64> = r.get(unit_at)?;
            Ok(Caller {
                user: user_from(r, 0)?,
                company: company_from(r, USER_WIDTH)?,
                unit: match unit_id {
                    Some(_) => Some(unit_from(r, unit_at)?),
                    None => None,
                },
                request_id: None,
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
            |r| {
                Ok(StoredCertificate {
                    id: r.get("id")?,
                    subject: r.get("subject")?,
                    serial: r.get("serial")?,
                    valid_from: r.get("valid_from")?,
                    valid_to: r.get("valid_to")?,
                    cert_der: r.get("cert_der")?,
                    key_sealed: r.get("key_sealed")?,
                })
            },
        )
        .optional()?)
}

/// The company's newest certificate: the one it signs with.
pub fn current_certificate(conn: &Connection, company_id: i64) -> Result<Option<StoredCertificate>> {
    Ok(conn
        .query_row(
            "SELECT id, subject, serial, valid_from, valid_to, cert_der, key_sealed FROM certificates
             WHERE company_id = :company ORDER BY id DESC LIMIT 1",
            named_params! {":company": company_id},
            |r| {
                Ok(StoredCertificate {
                    id: r.get(0)?,
                    subject: r.get(1)?,
                    serial: r.get(2)?,
                    valid_from: r.get(3)?,
                    valid_to: r.get(4)?,
                    cert_der: r.get(5)?,
                    key_sealed: r.get(6)?,
                })
            },
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

fn bank_account_from(r: &Row) -> rusqlite::Result<BankAccount> {
    Ok(BankAccount {
        id: r.get(0)?,
        name: r.get(1)?,
        holder: r.get(2)?,
        iban: r.get(3)?,
        swift: r.get(4)?,
        currency: r.get(5)?,
        notes: r.get(6)?,
    })
}

pub fn bank_account(conn: &Connection, company_id: i64, id: i64) -> Result<Option<BankAccount>> {
    Ok(conn
        .query_row(
            "SELECT id, name, holder, iban, swift, currency, notes FROM bank_accounts
             WHERE id = :id AND company_id = :company",
            named_params! {":id": id, ":company": company_id},
            bank_account_from,
        )
        .optional()?)
}

/// A page of the company's bank accounts, newest first, and how many there are in all.
pub fn bank_accounts(
    conn: &Connection,
    company_id: i64,
    limit: i64,
    offset: i64,
) -> Result<(Vec<BankAccount>, i64)> {
    let total = conn.query_row(
        "SELECT COUNT(*) FROM bank_accounts WHERE company_id = :company",
        named_params! {":company": company_id},
        |r| r.get(0),
    )?;
    let mut stmt = conn.prepare(
        "SELECT id, name, holder, iban, swift, currency, notes FROM bank_accounts
         WHERE company_id = :company ORDER BY id DESC LIMIT :limit OFFSET :offset",
    )?;
    let items = stmt
        .query_map(
            named_params! {":company": company_id, ":limit": limit, ":offset": offset},
            bank_account_from,
        )?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok((items, total))
}

#[cfg(test)]
mod tests {
    use super::*;

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
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(roles, [Role::Owner, Role::Manager, Role::Owner, Role::Manager, Role::Manager]);
        assert_eq!(owners(&conn, 1).unwrap(), (1, 1));
        let unset: i64 = conn
            .query_row("SELECT COUNT(*) FROM users WHERE token_prefix IS NULL", [], |r| r.get(0))
            .unwrap();
        assert_eq!(unset, 5, "an old token's prefix is unknown");
        assert!(
            conn.execute("UPDATE users SET role = 'admin' WHERE id = 1", []).is_err(),
            "three roles only"
        );
    }
}
