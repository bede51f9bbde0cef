//! A company's clients: one row per client, whatever view made it.

use rusqlite::types::Type;
use rusqlite::{Connection, OptionalExtension, Row, named_params};

use super::{Result, now_text};
use crate::domain::client::Client;

/// A client as stored.
#[derive(Debug, Clone)]
pub struct StoredClient {
    pub id: i64,
    pub client: Client,
    pub verified: bool,
    pub created_at: String,
    pub updated_at: String,
}

const COLUMNS: &str = "id, client_type, company_name, company_category, first_name, last_name, birthday,
    gender, id_type, id_value, address, city, country, phone, email, customer_number, nationality_code,
    nationality_id, verified, created_at, updated_at";

fn client_from(r: &Row) -> rusqlite::Result<StoredClient> {
    let birthday: Option<String> = r.get(6)?;
    let birthday = match birthday {
        Some(text) => Some(
            chrono::NaiveDate::parse_from_str(&text, "%Y-%m-%d")
                .map_err(|e| rusqlite::Error::FromSqlConversionFailure(6, Type::Text, Box::new(e)))?,
        ),
        None => None,
    };
    Ok(StoredClient {
        id: r.get(0)?,
        client: Client {
            client_type: r.get(1)?,
            company_name: r.get(2)?,
            company_category: r.get(3)?,
            first_name: r.get(4)?,
            last_name: r.get(5)?,
            birthday,
            gender: r.get(7)?,
            id_type: r.get(8)?,
            id_value: r.get(9)?,
            address: r.get(10)?,
            city: r.get(11)?,
            country: r.get(12)?,
            phone: r.get(13)?,
            email: r.get(14)?,
            customer_number: r.get(15)?,
            nationality_code: r.get(16)?,
            nationality_id: r.get(17)?,
        },
        verified: r.get(18)?,
        created_at: r.get(19)?,
        updated_at: r.get(20)?,
    })
}

/// Stores a new client (not verified); a duplicate identifier is `Error::Duplicate`.
pub fn insert(conn: &Connection, company_id: i64, c: &Client) -> Result<i64> {
    let now = now_text();
    conn.execute(
        "INSERT INTO clients (company_id, client_type, company_name, company_category, first_name, last_name,
             birthday, gender, id_type, id_value, address, city, country, phone, email, customer_number,
             nationality_code, nationality_id, verified, search_text, created_at, updated_at)
         VALUES (:company, :type, :company_name, :category, :first, :last, :birthday, :gender, :id_type,
             :id_value, :address, :city, :country, :phone, :email, :number, :nat_code, :nat_id, 0, :search,
             :now, :now)",
        named_params! {
            ":company": company_id,
            ":type": c.client_type.as_str(),
            ":company_name": c.company_name,
            ":category": c.company_category.map(|v| v.as_str()),
            ":first": c.first_name,
            ":last": c.last_name,
            ":birthday": c.birthday.map(|d| d.format("%Y-%m-%d").to_string()),
            ":gender": c.gender.map(|v| v.as_str()),
            ":id_type": c.id_type.as_str(),
            ":id_value": c.id_value,
            ":address": c.address,
            ":city": c.city,
            ":country": c.country,
            ":phone": c.phone,
            ":email": c.email,
            ":number": c.customer_number,
            ":nat_code": c.nationality_code,
            ":nat_id": c.nationality_id,
            ":search": c.search_text(),
            ":now": now,
        },
    )?;
    Ok(conn.last_insert_rowid())
}

/// Rewrites a client of the company with `c`; `verified` says whether its identifier stays
/// confirmed. Returns whether a row was changed.
pub fn update(conn: &Connection, company_id: i64, id: i64, c: &Client, verified: bool) -> Result<bool> {
    let changed = conn.execute(
        "UPDATE clients SET company_name = :company_name, company_category = :category, first_name = :first,
             last_name = :last, birthday = :birthday, gender = :gender, id_type = :id_type, id_value = :id_value,
             address = :address, city = :city, country = :country, phone = :phone, email = :email,
             customer_number = :number, nationality_code = :nat_code, nationality_id = :nat_id,
             verified = :verified, search_text = :search, updated_at = :now
         WHERE id = :id AND company_id = :company",
        named_params! {
            ":id": id,
            ":company": company_id,
            ":company_name": c.company_name,
            ":category": c.company_category.map(|v| v.as_str()),
            ":first": c.first_name,
            ":last": c.last_name,
            ":birthday": c.birthday.map(|d| d.format("%Y-%m-%d").to_string()),
            ":gender": c.gender.map(|v| v.as_str()),
            ":id_type": c.id_type.as_str(),
            ":id_value": c.id_value,
            ":address": c.address,
            ":city": c.city,
            ":country": c.country,
            ":phone": c.phone,
            ":email": c.email,
            ":number": c.customer_number,
            ":nat_code": c.nationality_code,
            ":nat_id": c.nationality_id,
            ":verified": verified,
            ":search": c.search_text(),
            ":now": now_text(),
        },
    )?;
    Ok(changed > 0)
}

/// A client of the company; None for an unknown id or another company's client.
pub fn get(conn: &Connection, company_id: i64, id: i64) -> Result<Option<StoredClient>> {
    Ok(conn
        .query_row(
            &format!("SELECT {COLUMNS} FROM clients WHERE id = :id AND company_id = :company"),
            named_params! {":id": id, ":company": company_id},
            client_from,
        )
        .optional()?)
}

/// `term` (already lowercased) as a LIKE pattern matching it anywhere, wildcards escaped.
fn contains_pattern(term: Option<&str>) -> Option<String> {
    term.map(|t| {
        let escaped = t.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
        format!("%{escaped}%")
    })
}

/// A page of the company's clients matching `term` (see `Client::search_text`), newest first.
pub fn list(
    conn: &Connection,
    company_id: i64,
    term: Option<&str>,
    limit: i64,
    offset: i64,
) -> Result<Vec<StoredClient>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM clients
         WHERE company_id = :company AND (:pattern IS NULL OR search_text LIKE :pattern ESCAPE '\\')
         ORDER BY id DESC LIMIT :limit OFFSET :offset"
    ))?;
    let rows = stmt.query_map(
        named_params! {
            ":company": company_id, ":pattern": contains_pattern(term), ":limit": limit, ":offset": offset,
        },
        client_from,
    )?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// How many of the company's clients match `term`.
pub fn count(conn: &Connection, company_id: i64, term: Option<&str>) -> Result<i64> {
    Ok(conn.query_row(
        "SELECT COUNT(*) FROM clients
         WHERE company_id = :company AND (:pattern IS NULL OR search_text LIKE :pattern ESCAPE '\\')",
        named_params! {":company": company_id, ":pattern": contains_pattern(term)},
        |r| r.get(0),
    )?)
}

/// Marks the company's clients with this NUIS as confirmed by the fiscal register.
/// Returns how many were newly marked.
pub fn mark_verified(conn: &Connection, company_id: i64, nuis: &str) -> Result<usize> {
    Ok(conn.execute(
        "UPDATE clients SET verified = 1, updated_at = :now
         WHERE company_id = :company AND id_type = 'nuis' AND id_value = :nuis AND verified = 0",
        named_params! {":company": company_id, ":nuis": nuis.to_uppercase(), ":now": now_text()},
    )?)
}
