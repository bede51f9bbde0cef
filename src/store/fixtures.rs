//! Rows the store's tests start from: companies, their units, users and products.

use rusqlite::Connection;

use super::accounts::{self, NewCompany, NewUser, UnitFields};

pub fn company(conn: &Connection, nuis: &str) -> i64 {
    accounts::insert_company(
        conn,
        &NewCompany {
            nuis,
            name: "Shop",
            address: None,
            city: None,
            administrator: None,
            phone: None,
            email: None,
            issuer_in_vat: true,
            last_noncash_einvoice_number: 0,
            is_sandbox: false,
            partner_id: None,
        },
    )
    .unwrap()
}

/// A business unit named `name`, with the business unit code `code`.
pub fn unit(conn: &Connection, company_id: i64, name: &str, code: Option<&str>) -> i64 {
    let fields =
        UnitFields { name, business_unit_code: code, administrator: None, address: None, city: None };
    accounts::insert_unit(conn, company_id, &fields).unwrap()
}

pub fn user(conn: &Connection, company_id: i64, unit_id: i64, email: &str) -> i64 {
    accounts::insert_user(
        conn,
        &NewUser {
            company_id,
            business_unit_id: Some(unit_id),
            name: "Ana",
            email,
            operator_code: None,
            tcr_code: None,
            role: crate::domain::role::Role::Owner,
            token_hash: email,
            token_prefix: "arka_u_",
        },
    )
    .unwrap()
}

/// A product coded `code` (also its name); `service` false makes it an inventory article.
pub fn product(conn: &Connection, company_id: i64, code: &str, service: bool) -> i64 {
    conn.execute(
        "INSERT INTO products (company_id, code, name, description, last_price, vat_rate, currency, service,
             unit_code, created_at, updated_at)
         VALUES (?1, ?2, ?2, ?2, '10', '20', 'ALL', ?3, 'C62', 'now', 'now')",
        rusqlite::params![company_id, code, service],
    )
    .unwrap();
    conn.last_insert_rowid()
}
