//! A company's product catalog and its categories. Amounts are stored as Decimal text, so
//! they come back exactly as they were saved.

use std::str::FromStr;

use rusqlite::types::Type;
use rusqlite::{Connection, OptionalExtension, Row, named_params};
use rust_decimal::Decimal;

use super::{Result, now_text};
use crate::domain::product::{Category, Product};

#[derive(Debug, Clone)]
pub struct StoredCategory {
    pub id: i64,
    pub category: Category,
    pub created_at: String,
    pub updated_at: String,
}

/// A product as stored; `product.code` is always set.
#[derive(Debug, Clone)]
pub struct StoredProduct {
    pub id: i64,
    pub product: Product,
    pub category: Option<StoredCategory>,
    pub created_at: String,
    pub updated_at: String,
}

const CATEGORY_COLUMNS: &str = "id, name, color, created_at, updated_at";

fn category_from(r: &Row) -> rusqlite::Result<StoredCategory> {
    Ok(StoredCategory {
        id: r.get(0)?,
        category: Category { name: r.get(1)?, color: r.get(2)? },
        created_at: r.get(3)?,
        updated_at: r.get(4)?,
    })
}

pub fn insert_category(conn: &Connection, company_id: i64, c: &Category) -> Result<i64> {
    let now = now_text();
    conn.execute(
        "INSERT INTO product_categories (company_id, name, color, created_at, updated_at)
         VALUES (:company, :name, :color, :now, :now)",
        named_params! {":company": company_id, ":name": c.name, ":color": c.color, ":now": now},
    )?;
    Ok(conn.last_insert_rowid())
}

/// Returns whether the company has such a category (and it was rewritten).
pub fn update_category(conn: &Connection, company_id: i64, id: i64, c: &Category) -> Result<bool> {
    let changed = conn.execute(
        "UPDATE product_categories SET name = :name, color = :color, updated_at = :now
         WHERE id = :id AND company_id = :company",
        named_params! {":id": id, ":company": company_id, ":name": c.name, ":color": c.color, ":now": now_text()},
    )?;
    Ok(changed > 0)
}

pub fn category(conn: &Connection, company_id: i64, id: i64) -> Result<Option<StoredCategory>> {
    Ok(conn
        .query_row(
            &format!(
                "SELECT {CATEGORY_COLUMNS} FROM product_categories WHERE id = :id AND company_id = :company"
            ),
            named_params! {":id": id, ":company": company_id},
            category_from,
        )
        .optional()?)
}

/// Every category of the company, newest first.
pub fn categories(conn: &Connection, company_id: i64) -> Result<Vec<StoredCategory>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {CATEGORY_COLUMNS} FROM product_categories WHERE company_id = :company ORDER BY id DESC"
    ))?;
    let rows = stmt.query_map(named_params! {":company": company_id}, category_from)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

const PRODUCT_COLUMNS: &str = "p.id, p.code, p.name, p.description, p.last_price, p.cost_price, p.vat_rate,
    p.currency, p.service, p.unit_code, p.category_id, p.vat_exempt_type, p.created_at, p.updated_at,
    c.id, c.name, c.color, c.created_at, c.updated_at";

fn decimal(r: &Row, at: usize) -> rusqlite::Result<Option<Decimal>> {
    let text: Option<String> = r.get(at)?;
    text.map(|t| {
        Decimal::from_str(&t)
            .map_err(|e| rusqlite::Error::FromSqlConversionFailure(at, Type::Text, Box::new(e)))
    })
    .transpose()
}

fn product_from(r: &Row) -> rusqlite::Result<StoredProduct> {
    let last_price =
        decimal(r, 4)?.ok_or(rusqlite::Error::InvalidColumnType(4, "last_price".into(), Type::Null))?;
    let category_id: Option<i64> = r.get(14)?;
    let category = match category_id {
        Some(id) => Some(StoredCategory {
            id,
            category: Category { name: r.get(15)?, color: r.get(16)? },
            created_at: r.get(17)?,
            updated_at: r.get(18)?,
        }),
        None => None,
    };
    Ok(StoredProduct {
        id: r.get(0)?,
        product: Product {
            code: Some(r.get(1)?),
            name: r.get(2)?,
            description: r.get(3)?,
            last_price,
            cost_price: decimal(r, 5)?,
            vat_rate: r.get(6)?,
            currency: r.get(7)?,
            service: r.get(8)?,
            unit_code: r.get(9)?,
            category_id: r.get(10)?,
            vat_exempt_type: r.get(11)?,
        },
        category,
        created_at: r.get(12)?,
        updated_at: r.get(13)?,
    })
}

fn code_taken(conn: &Connection, company_id: i64, code: &str) -> Result<bool> {
    Ok(conn
        .query_row(
            "SELECT 1 FROM products WHERE company_id = :company AND code = :code",
            named_params! {":company": company_id, ":code": code},
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

/// `P` and the id the next product will get (`P000123`), moved on past codes a caller has
/// already chosen. Runs in the writer's transaction, so the id is the one about to be used.
fn generated_code(conn: &Connection, company_id: i64) -> Result<String> {
    let mut n: i64 = conn.query_row("SELECT COALESCE(MAX(id), 0) + 1 FROM products", [], |r| r.get(0))?;
    loop {
        let code = format!("P{n:06}");
        if !code_taken(conn, company_id, &code)? {
            return Ok(code);
        }
        n += 1;
    }
}

/// Stores a new product, generating its code when it has none; a taken code is
/// `Error::Duplicate`.
pub fn insert_product(conn: &Connection, company_id: i64, p: &Product) -> Result<i64> {
    let code = match &p.code {
        Some(code) => code.clone(),
        None => generated_code(conn, company_id)?,
    };
    let now = now_text();
    conn.execute(
        "INSERT INTO products (company_id, code, name, description, last_price, cost_price, vat_rate, currency,
             service, unit_code, category_id, vat_exempt_type, created_at, updated_at)
         VALUES (:company, :code, :name, :description, :last_price, :cost_price, :vat_rate, :currency, :service,
             :unit_code, :category, :exempt, :now, :now)",
        named_params! {
            ":company": company_id,
            ":code": code,
            ":name": p.name,
            ":description": p.description,
            ":last_price": p.last_price.to_string(),
            ":cost_price": p.cost_price.map(|c| c.to_string()),
            ":vat_rate": p.vat_rate,
            ":currency": p.currency,
            ":service": p.service,
            ":unit_code": p.unit_code,
            ":category": p.category_id,
            ":exempt": p.vat_exempt_type,
            ":now": now,
        },
    )?;
    Ok(conn.last_insert_rowid())
}

/// Rewrites a product of the company. Returns whether it exists.
pub fn update_product(conn: &Connection, company_id: i64, id: i64, p: &Product) -> Result<bool> {
    let code = match &p.code {
        Some(code) => code.clone(),
        None => generated_code(conn, company_id)?,
    };
    let changed = conn.execute(
        "UPDATE products SET code = :code, name = :name, description = :description, last_price = :last_price,
             cost_price = :cost_price, vat_rate = :vat_rate, currency = :currency, service = :service,
             unit_code = :unit_code, category_id = :category, vat_exempt_type = :exempt, updated_at = :now
         WHERE id = :id AND company_id = :company",
        named_params! {
            ":id": id,
            ":company": company_id,
            ":code": code,
            ":name": p.name,
            ":description": p.description,
            ":last_price": p.last_price.to_string(),
            ":cost_price": p.cost_price.map(|c| c.to_string()),
            ":vat_rate": p.vat_rate,
            ":currency": p.currency,
            ":service": p.service,
            ":unit_code": p.unit_code,
            ":category": p.category_id,
            ":exempt": p.vat_exempt_type,
            ":now": now_text(),
        },
    )?;
    Ok(changed > 0)
}

pub fn product(conn: &Connection, company_id: i64, id: i64) -> Result<Option<StoredProduct>> {
    Ok(conn
        .query_row(
            &format!(
                "SELECT {PRODUCT_COLUMNS} FROM products p LEFT JOIN product_categories c ON c.id = p.category_id
                 WHERE p.id = :id AND p.company_id = :company"
            ),
            named_params! {":id": id, ":company": company_id},
            product_from,
        )
        .optional()?)
}

/// The company's products, newest first; `limit` None reads to the end.
pub fn products(
    conn: &Connection,
    company_id: i64,
    limit: Option<i64>,
    offset: i64,
) -> Result<Vec<StoredProduct>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {PRODUCT_COLUMNS} FROM products p LEFT JOIN product_categories c ON c.id = p.category_id
         WHERE p.company_id = :company ORDER BY p.id DESC LIMIT :limit OFFSET :offset"
    ))?;
    // SQLite reads a negative LIMIT as no limit.
    let rows = stmt.query_map(
        named_params! {":company": company_id, ":limit": limit.unwrap_or(-1), ":offset": offset},
        product_from,
    )?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

pub fn count_products(conn: &Connection, company_id: i64) -> Result<i64> {
    Ok(conn.query_row(
        "SELECT COUNT(*) FROM products WHERE company_id = :company",
        named_params! {":company": company_id},
        |r| r.get(0),
    )?)
}

/// The id of the company's product with this code (codes are unique in a company).
pub fn product_id_by_code(conn: &Connection, company_id: i64, code: &str) -> Result<Option<i64>> {
    Ok(conn
        .query_row(
            "SELECT id FROM products WHERE company_id = :company AND code = :code",
            named_params! {":company": company_id, ":code": code},
            |r| r.get(0),
        )
        .optional()?)
}
