//! A company's clients: one row per client, whatever view made it.

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ValueRef};
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

/// A date stored as `YYYY-MM-DD`.
struct Day(chrono::NaiveDate);

impl FromSql for Day {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        chrono::NaiveDate::parse_from_str(value.as_str()?, "%Y-%m-%d")
            .map(Day)
            .map_err(|e| FromSqlError::Other(Box::new(e)))
    }
}

/// One row of `clients` (`COLUMNS`), read by column name.
fn client_from(r: &Row) -> rusqlite::Result<StoredClient> {
    Ok(StoredClient {
        id: r.get("id")?,
        client: Client {
            client_type: r.get("client_type")?,
            company_name: r.get("company_name")?,
            company_category: r.get("company_category")?,
            first_name: r.get("first_name")?,
            last_name: r.get("last_name")?,
            birthday: r.get::<_, Option<Day>>("birthday")?.map(|d| d.0),
            gender: r.get("gender")?,
            id_type: r.get("id_type")?,
            id_value: r.get("id_value")?,
            address: r.get("address")?,
            city: r.get("city")?,
            country: r.get("country")?,
            phone: r.get("phone")?,
            email: r.get("email")?,
            customer_number: r.get("customer_number")?,
            nationality_code: r.get("nationality_code")?,
            nationality_id: r.get("nationality_id")?,
        },
        verified: r.get("verified")?,
        created_at: r.get("created_at")?,
        updated_at: r.get("updated_at")?,
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
        "SELECT COUNT(*) AS clients FROM clients
         WHERE company_id = :company AND (:pattern IS NULL OR search_text LIKE :pattern ESCAPE '\\')",
        named_params! {":company": company_id, ":pattern": contains_pattern(term)},
        |r| r.get("clients"),
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

#[cfg(test)]
mod tests {
    use chrono::NaiveDate;

    use super::*;
    use crate::domain::client::{ClientType, CompanyCategory, Gender, IdType};
    use crate::store::{Error, Store, fixtures};

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        (dir, store)
    }

    fn company(name: &str, nuis: &str) -> Client {
        Client {
            client_type: ClientType::Company,
            company_name: Some(name.into()),
            company_category: Some(CompanyCategory::Business),
            first_name: None,
            last_name: None,
            birthday: None,
            gender: None,
            id_type: IdType::Nuis,
            id_value: Some(nuis.into()),
            address: Some("Rruga e Kavajës 10".into()),
            city: Some("Tiranë".into()),
            country: Some("ALB".into()),
            phone: Some("+355 69 123 4567".into()),
            email: Some("info@example.al".into()),
            customer_number: Some("C-7".into()),
            nationality_code: None,
            nationality_id: None,
        }
    }

    fn person(first: &str) -> Client {
        Client {
            client_type: ClientType::Person,
            company_name: None,
            company_category: None,
            first_name: Some(first.into()),
            last_name: Some("Hoxha".into()),
            birthday: NaiveDate::from_ymd_opt(1990, 2, 28),
            gender: Some(Gender::Female),
            id_type: IdType::Passport,
            id_value: None,
            address: None,
            city: None,
            country: None,
            phone: None,
            email: None,
            customer_number: None,
            nationality_code: Some("AL".into()),
            nationality_id: Some(3),
        }
    }

    #[test]
    fn a_client_reads_back_field_for_field_and_is_only_its_companys() {
        let (_dir, store) = store();
        store
            .write_blocking(|tx| -> Result<_> {
                let mine = fixtures::company(tx, "L1");
                let theirs = fixtures::company(tx, "L2");
                let firm = insert(tx, mine, &company("Alfa shpk", "K12345678A"))?;
                let ana = insert(tx, mine, &person("Ana"))?;
                let read = get(tx, mine, firm)?.unwrap();
                assert_eq!(read.client, company("Alfa shpk", "K12345678A"));
                assert!(!read.verified);
                assert!(!read.created_at.is_empty() && read.created_at == read.updated_at);
                assert_eq!(get(tx, mine, ana)?.unwrap().client, person("Ana"), "dates and enumerations too");
                assert!(get(tx, theirs, firm)?.is_none(), "another company's client");
                assert!(get(tx, mine, ana + 1)?.is_none());
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn an_identifier_is_taken_once_per_company_in_any_case_and_clients_without_one_repeat() {
        let (_dir, store) = store();
        store
            .write_blocking(|tx| -> Result<_> {
                let mine = fixtures::company(tx, "L1");
                let theirs = fixtures::company(tx, "L2");
                insert(tx, mine, &company("Alfa shpk", "K12345678A"))?;
                assert!(matches!(insert(tx, mine, &company("Beta", "k12345678a")), Err(Error::Duplicate(_))));
                insert(tx, theirs, &company("Alfa shpk", "K12345678A"))?;
                insert(tx, mine, &person("Ana"))?;
                insert(tx, mine, &person("Ana"))?;
                assert_eq!(count(tx, mine, None)?, 3);
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn an_update_rewrites_the_client_and_says_whether_it_found_one() {
        let (_dir, store) = store();
        store
            .write_blocking(|tx| -> Result<_> {
                let mine = fixtures::company(tx, "L1");
                let theirs = fixtures::company(tx, "L2");
                let id = insert(tx, mine, &company("Alfa shpk", "K12345678A"))?;
                let changed = Client {
                    company_name: Some("Alfa Group".into()),
                    city: None,
                    ..company("", "K12345678A")
                };
                assert!(update(tx, mine, id, &changed, true)?);
                let read = get(tx, mine, id)?.unwrap();
                assert_eq!((read.client, read.verified), (changed.clone(), true));
                assert_eq!(list(tx, mine, Some("group"), 10, 0)?.len(), 1, "its search text follows");
                assert!(!update(tx, theirs, id, &changed, false)?);
                assert!(!update(tx, mine, id + 1, &changed, false)?);
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn the_list_pages_newest_first_and_matches_a_term_anywhere_with_wildcards_taken_literally() {
        let (_dir, store) = store();
        store
            .write_blocking(|tx| -> Result<_> {
                let mine = fixtures::company(tx, "L1");
                let a = insert(tx, mine, &company("Alfa 100% shpk", "K1"))?;
                let b = insert(tx, mine, &company("Beta_ALFA", "K2"))?;
                let c = insert(tx, mine, &person("Drita"))?;
                let ids = |found: Vec<StoredClient>| found.into_iter().map(|s| s.id).collect::<Vec<_>>();
                assert_eq!(ids(list(tx, mine, None, 2, 0)?), [c, b]);
                assert_eq!(ids(list(tx, mine, None, 2, 2)?), [a]);
                assert_eq!(ids(list(tx, mine, Some("alfa"), 10, 0)?), [b, a]);
                assert_eq!(count(tx, mine, Some("alfa"))?, 2);
                assert_eq!(ids(list(tx, mine, Some("0% s"), 10, 0)?), [a]);
                assert_eq!(count(tx, mine, Some("1%k"))?, 0, "% is a character, not any text");
                assert_eq!(ids(list(tx, mine, Some("a_a"), 10, 0)?), [b]);
                assert_eq!(count(tx, mine, Some("a_f"))?, 0, "_ is a character, not any one");
                assert_eq!(ids(list(tx, mine, Some("69123"), 10, 0)?), [b, a], "the phone without spaces");
                assert!(list(tx, mine + 1, None, 10, 0)?.is_empty());
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn a_nuis_confirmed_by_the_register_marks_the_companys_clients_once() {
        let (_dir, store) = store();
        store
            .write_blocking(|tx| -> Result<_> {
                let mine = fixtures::company(tx, "L1");
                let theirs = fixtures::company(tx, "L2");
                let id = insert(tx, mine, &company("Alfa", "K12345678A"))?;
                let other = insert(tx, theirs, &company("Alfa", "K12345678A"))?;
                assert_eq!(mark_verified(tx, mine, "k12345678a")?, 1);
                assert_eq!(mark_verified(tx, mine, "K12345678A")?, 0, "already marked");
                assert!(get(tx, mine, id)?.unwrap().verified);
                assert!(!get(tx, theirs, other)?.unwrap().verified, "not another company's client");
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn text_that_is_no_enumeration_fails_the_read_instead_of_guessing() {
        let (_dir, store) = store();
        let read = store.write_blocking(|tx| -> Result<_> {
            let mine = fixtures::company(tx, "L1");
            let id = insert(tx, mine, &company("Alfa", "K1"))?;
            tx.execute("UPDATE clients SET gender = 'other' WHERE id = ?1", [id])?;
            get(tx, mine, id)
        });
        assert!(matches!(read, Err(Error::Sqlite(_))), "{read:?}");
    }
}
