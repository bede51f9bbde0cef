//! A company's product catalog and its categories. Amounts are stored as Decimal text, so
//! they come back exactly as they were saved.

use rusqlite::{Connection, OptionalExtension, Row, named_params};
use rust_decimal::Decimal;

use super::money::Money;
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
        id: r.get("id")?,
        category: Category { name: r.get("name")?, color: r.get("color")? },
        created_at: r.get("created_at")?,
        updated_at: r.get("updated_at")?,
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
    c.id AS category_row_id, c.name AS category_name, c.color AS category_color,
    c.created_at AS category_created_at, c.updated_at AS category_updated_at";

fn decimal(r: &Row, column: &str) -> rusqlite::Result<Option<Decimal>> {
    Ok(r.get::<_, Option<Money>>(column)?.map(|m| m.0))
}

fn product_from(r: &Row) -> rusqlite::Result<StoredProduct> {
    let last_price = r.get::<_, Money>("last_price")?.0;
    let category_id: Option<i64> = r.get("category_row_id")?;
    let category = match category_id {
        Some(id) => Some(StoredCategory {
            id,
            category: Category { name: r.get("category_name")?, color: r.get("category_color")? },
            created_at: r.get("category_created_at")?,
            updated_at: r.get("category_updated_at")?,
        }),
        None => None,
    };
    Ok(StoredProduct {
        id: r.get("id")?,
        product: Product {
            code: Some(r.get("code")?),
            name: r.get("name")?,
            description: r.get("description")?,
            last_price,
            cost_price: decimal(r, "cost_price")?,
            vat_rate: r.get("vat_rate")?,
            currency: r.get("currency")?,
            service: r.get("service")?,
            unit_code: r.get("unit_code")?,
            category_id: r.get("category_id")?,
            vat_exempt_type: r.get("vat_exempt_type")?,
        },
        category,
        created_at: r.get("created_at")?,
        updated_at: r.get("updated_at")?,
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
    let mut n: i64 =
        conn.query_row("SELECT COALESCE(MAX(id), 0) + 1 AS next_id FROM products", [], |r| r.get("next_id"))?;
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
        "SELECT COUNT(*) AS products FROM products WHERE company_id = :company",
        named_params! {":company": company_id},
        |r| r.get("products"),
    )?)
}

/// The id of the company's product with this code (codes are unique in a company).
pub fn product_id_by_code(conn: &Connection, company_id: i64, code: &str) -> Result<Option<i64>> {
    Ok(conn
        .query_row(
            "SELECT id FROM products WHERE company_id = :company AND code = :code",
            named_params! {":company": company_id, ":code": code},
            |r| r.get("id"),
        )
        .optional()?)
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

    fn coffee(code: Option<&str>) -> Product {
        Product {
            code: code.map(Into::into),
            name: "Kafe".into(),
            description: "Espresso".into(),
            last_price: "120.50".parse().unwrap(),
            cost_price: Some("40.125".parse().unwrap()),
            vat_rate: "20".into(),
            currency: "ALL".into(),
            service: false,
            unit_code: "C62".into(),
            category_id: None,
            vat_exempt_type: None,
        }
    }

    fn named(name: &str) -> Category {
        Category { name: name.into(), color: Some("#FF0000".into()) }
    }

    #[test]
    fn a_category_reads_back_is_the_companys_own_and_its_name_is_taken_once_in_any_case() {
        let (_dir, store) = store();
        store
            .write_blocking(|tx| -> Result<_> {
                let mine = fixtures::company(tx, "L1");
                let theirs = fixtures::company(tx, "L2");
                let drinks = insert_category(tx, mine, &named("Pije"))?;
                let food = insert_category(tx, mine, &Category { name: "Ushqim".into(), color: None })?;
                insert_category(tx, theirs, &named("Pije"))?;
                assert!(matches!(insert_category(tx, mine, &named("PIJE")), Err(Error::Duplicate(_))));
                let read = category(tx, mine, drinks)?.unwrap();
                assert_eq!((read.id, read.category.clone()), (drinks, named("Pije")));
                assert!(!read.created_at.is_empty());
                assert!(category(tx, theirs, drinks)?.is_none());
                assert!(update_category(tx, mine, food, &named("Ushqime"))?);
                assert_eq!(category(tx, mine, food)?.unwrap().category, named("Ushqime"));
                assert!(!update_category(tx, theirs, food, &named("X"))?);
                let names: Vec<String> = categories(tx, mine)?.into_iter().map(|c| c.category.name).collect();
                assert_eq!(names, ["Ushqime", "Pije"], "newest first");
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn a_product_reads_back_exactly_with_its_category() {
        let (_dir, store) = store();
        store
            .write_blocking(|tx| -> Result<_> {
                let mine = fixtures::company(tx, "L1");
                let drinks = insert_category(tx, mine, &named("Pije"))?;
                let with = Product { category_id: Some(drinks), ..coffee(Some("K1")) };
                let id = insert_product(tx, mine, &with)?;
                let read = product(tx, mine, id)?.unwrap();
                assert_eq!(read.product, with, "amounts exact, 40.125 too");
                let c = read.category.unwrap();
                assert_eq!((c.id, c.category), (drinks, named("Pije")));
                let exempt = Product {
                    cost_price: None,
                    vat_rate: "0".into(),
                    vat_exempt_type: Some("TYPE_1".into()),
                    service: true,
                    ..coffee(Some("S1"))
                };
                let plain = insert_product(tx, mine, &exempt)?;
                let read = product(tx, mine, plain)?.unwrap();
                assert_eq!((read.product, read.category.is_none()), (exempt, true));
                assert!(product(tx, mine + 1, id)?.is_none(), "not another company's");
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn a_product_without_a_code_gets_the_next_free_one_and_a_taken_code_is_a_duplicate() {
        let (_dir, store) = store();
        store
            .write_blocking(|tx| -> Result<_> {
                let mine = fixtures::company(tx, "L1");
                let theirs = fixtures::company(tx, "L2");
                insert_product(tx, mine, &coffee(Some("P000002")))?;
                let generated = insert_product(tx, mine, &coffee(None))?;
                assert_eq!(generated, 2);
                assert_eq!(
                    product(tx, mine, generated)?.unwrap().product.code.as_deref(),
                    Some("P000003"),
                    "P000002 was taken"
                );
                assert!(matches!(
                    insert_product(tx, mine, &coffee(Some("P000002"))),
                    Err(Error::Duplicate(_))
                ));
                insert_product(tx, theirs, &coffee(Some("P000002")))?;
                assert_eq!(product_id_by_code(tx, mine, "P000003")?, Some(generated));
                assert_eq!(product_id_by_code(tx, mine, "NONE")?, None);
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn an_update_rewrites_the_product_and_says_whether_it_found_one() {
        let (_dir, store) = store();
        store
            .write_blocking(|tx| -> Result<_> {
                let mine = fixtures::company(tx, "L1");
                let id = insert_product(tx, mine, &coffee(Some("K1")))?;
                let dearer =
                    Product { last_price: "130".parse().unwrap(), cost_price: None, ..coffee(Some("K2")) };
                assert!(update_product(tx, mine, id, &dearer)?);
                assert_eq!(product(tx, mine, id)?.unwrap().product, dearer);
                assert!(!update_product(tx, mine + 1, id, &dearer)?);
                assert!(!update_product(tx, mine, id + 1, &dearer)?);
                let other = insert_product(tx, mine, &coffee(Some("K3")))?;
                assert!(matches!(update_product(tx, mine, other, &dearer), Err(Error::Duplicate(_))));
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn the_catalog_pages_newest_first_and_reads_to_the_end_without_a_limit() {
        let (_dir, store) = store();
        store
            .write_blocking(|tx| -> Result<_> {
                let mine = fixtures::company(tx, "L1");
                let theirs = fixtures::company(tx, "L2");
                let ids: Vec<i64> = ["A", "B", "C"]
                    .into_iter()
                    .map(|c| insert_product(tx, mine, &coffee(Some(c))))
                    .collect::<Result<_>>()?;
                insert_product(tx, theirs, &coffee(Some("A")))?;
                let page = |limit, offset| -> Result<Vec<i64>> {
                    Ok(products(tx, mine, limit, offset)?.into_iter().map(|p| p.id).collect())
                };
                assert_eq!(page(Some(2), 0)?, [ids[2], ids[1]]);
                assert_eq!(page(Some(2), 2)?, [ids[0]]);
                assert_eq!(page(None, 1)?, [ids[1], ids[0]]);
                assert_eq!(count_products(tx, mine)?, 3);
                assert_eq!(count_products(tx, mine + 2)?, 0);
                Ok(())
            })
            .unwrap();
    }
}
