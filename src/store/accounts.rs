//! Partners, applications, companies, business units, users, certificates and bank accounts.

use rusqlite::{Connection, OptionalExtension, Row, named_params};

use super::{Result, now_text};

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
}

/// Who a user token speaks for.
#[derive(Debug, Clone)]
pub struct Caller {
    pub user: User,
    pub company: Company,
    pub unit: Option<BusinessUnit>,
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
    pub token_hash: &'a str,
}

/// Fields of a user update; `None` leaves the stored value.
#[derive(Default)]
pub struct UserPatch<'a> {
    pub name: Option<&'a str>,
    pub business_unit_id: Option<i64>,
    pub operator_code: Option<&'a str>,
    /// `None` keeps the user's device, `Some(None)` takes it away.
    pub tcr_code: Option<Option<&'a str>>,
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
    "u.id, u.company_id, u.business_unit_id, u.name, u.email, u.operator_code, u.tcr_code";

fn user_from(r: &Row, at: usize) -> rusqlite::Result<User> {
    Ok(User {
        id: r.get(at)?,
        company_id: r.get(at + 1)?,
        business_unit_id: r.get(at + 2)?,
        name: r.get(at + 3)?,
        email: r.get(at + 4)?,
        operator_code: r.get(at + 5)?,
        tcr_code: r.get(at + 6)?,
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
        "INSERT INTO users (company_id, business_unit_id, name, email, operator_code, tcr_code, token_hash,
             created_at, updated_at)
         VALUES (:company, :unit, :name, :email, :op, :tcr, :hash, :now, :now)",
        named_params! {
            ":company": u.company_id, ":unit": u.business_unit_id, ":name": u.name, ":email": u.email,
            ":op": u.operator_code, ":tcr": u.tcr_code, ":hash": u.token_hash, ":now": now,
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
             updated_at = :now
         WHERE id = :id AND company_id = :company",
        named_params! {
            ":name": p.name, ":unit": p.business_unit_id, ":op": p.operator_code,
            ":set_tcr": p.tcr_code.is_some(), ":tcr": p.tcr_code.flatten(),
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

/// The company's owner: the user its registration created (its first user).
pub fn owner_of(conn: &Connection, company_id: i64) -> Result<Option<i64>> {
    Ok(conn.query_row(
        "SELECT MIN(id) AS owner FROM users WHERE company_id = :company",
        named_params! {":company": company_id},
        |r| r.get("owner"),
    )?)
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
            let unit_id: Option<i64> = r.get(14)?;
            Ok(Caller {
                user: user_from(r, 0)?,
                company: company_from(r, 7)?,
                unit: match unit_id {
                    Some(_) => Some(unit_from(r, 14)?),
                    None => None,
                },
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
