//! Stock: what is on each unit's shelf per inventory article, every movement that changed it,
//! and the company's stock settings. Quantities are exact decimal TEXT.

use std::collections::BTreeMap;

use rusqlite::{Connection, OptionalExtension, Row, named_params};
use rust_decimal::Decimal;

use super::fiscal_queue::Document;
use super::money::Money;
use super::{Result, now_text};
use crate::domain::stock::Reason;

/// The company's stock settings; a company that never chose keeps stock and lets it go negative.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// Documents move stock.
    pub enabled: bool,
    /// A sale or note beyond what is on the shelf is refused.
    pub enforce: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { enabled: true, enforce: false }
    }
}

pub fn settings(conn: &Connection, company_id: i64) -> Result<Settings> {
    Ok(conn
        .prepare_cached("SELECT enabled, enforce FROM stock_settings WHERE company_id = :company")?
        .query_row(named_params! {":company": company_id}, |r| {
            Ok(Settings { enabled: r.get("enabled")?, enforce: r.get("enforce")? })
        })
        .optional()?
        .unwrap_or_default())
}

pub fn save_settings(conn: &Connection, company_id: i64, s: Settings, user_id: i64) -> Result<()> {
    conn.execute(
        "INSERT INTO stock_settings (company_id, enabled, enforce, updated_by, updated_at)
         VALUES (:company, :enabled, :enforce, :user, :now)
         ON CONFLICT (company_id) DO UPDATE SET enabled = excluded.enabled, enforce = excluded.enforce,
             updated_by = excluded.updated_by, updated_at = excluded.updated_at",
        named_params! {
            ":company": company_id, ":enabled": s.enabled, ":enforce": s.enforce, ":user": user_id,
            ":now": now_text(),
        },
    )?;
    Ok(())
}

/// A product that is an inventory article (`service` false).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Article {
    pub id: i64,
    pub code: String,
    pub name: String,
    pub unit_code: String,
}

fn article_from(r: &Row) -> rusqlite::Result<Article> {
    Ok(Article {
        id: r.get("id")?,
        code: r.get("code")?,
        name: r.get("name")?,
        unit_code: r.get("unit_code")?,
    })
}

/// The company's inventory article with this code, if any.
pub fn article_by_code(conn: &Connection, company_id: i64, code: &str) -> Result<Option<Article>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, code, name, unit_code FROM products
         WHERE company_id = :company AND code = :code AND service = 0",
    )?;
    Ok(stmt.query_row(named_params! {":company": company_id, ":code": code}, article_from).optional()?)
}

/// The company's inventory article with this id, if any.
pub fn article(conn: &Connection, company_id: i64, id: i64) -> Result<Option<Article>> {
    Ok(conn
        .query_row(
            "SELECT id, code, name, unit_code FROM products WHERE company_id = :company AND id = :id AND service = 0",
            named_params! {":company": company_id, ":id": id},
            article_from,
        )
        .optional()?)
}

fn quantity(r: &Row, column: &str) -> rusqlite::Result<Decimal> {
    let stored: Option<Money> = r.get(column)?;
    Ok(stored.map(|m| m.0).unwrap_or_default())
}

/// What the unit holds of each of `product_ids` (0 for an article it never held).
pub fn levels(
    conn: &Connection,
    business_unit_id: i64,
    product_ids: &[i64],
) -> Result<BTreeMap<i64, Decimal>> {
    let mut stmt = conn.prepare_cached(
        "SELECT quantity FROM stock_levels WHERE business_unit_id = :unit AND product_id = :product",
    )?;
    let mut levels = BTreeMap::new();
    for id in product_ids {
        let level = stmt
            .query_row(named_params! {":unit": business_unit_id, ":product": id}, |r| quantity(r, "quantity"))
            .optional()?;
        levels.insert(*id, level.unwrap_or_default());
    }
    Ok(levels)
}

pub fn set_level(
    conn: &Connection,
    company_id: i64,
    business_unit_id: i64,
    product_id: i64,
    q: Decimal,
) -> Result<()> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO stock_levels (company_id, business_unit_id, product_id, quantity, updated_at)
         VALUES (:company, :unit, :product, :quantity, :now)
         ON CONFLICT (business_unit_id, product_id) DO UPDATE SET quantity = excluded.quantity,
             updated_at = excluded.updated_at",
    )?;
    stmt.execute(named_params! {
        ":company": company_id, ":unit": business_unit_id, ":product": product_id, ":quantity": Money(q),
        ":now": now_text(),
    })?;
    Ok(())
}

/// A movement to record.
#[derive(Debug, Clone)]
pub struct NewMovement<'a> {
    pub company_id: i64,
    pub business_unit_id: i64,
    pub product_id: i64,
    pub reason: Reason,
    pub change: Decimal,
    pub quantity_after: Decimal,
    pub note: Option<&'a str>,
    /// The document that moved the goods, by its table and id.
    pub document: Option<(Document, i64)>,
    pub user_id: Option<i64>,
}

pub fn insert_movement(conn: &Connection, m: &NewMovement) -> Result<i64> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO stock_movements (company_id, business_unit_id, product_id, reason, change, quantity_after,
             note, document_kind, document_id, user_id, created_at)
         VALUES (:company, :unit, :product, :reason, :change, :after, :note, :kind, :document, :user, :now)",
    )?;
    stmt.execute(named_params! {
        ":company": m.company_id, ":unit": m.business_unit_id, ":product": m.product_id,
        ":reason": m.reason, ":change": Money(m.change), ":after": Money(m.quantity_after),
        ":note": m.note, ":kind": m.document.map(|(kind, _)| kind), ":document": m.document.map(|(_, id)| id),
        ":user": m.user_id, ":now": now_text(),
    })?;
    Ok(conn.last_insert_rowid())
}

/// A movement as read back, with the names a reader wants beside the ids.
#[derive(Debug, Clone, PartialEq)]
pub struct Movement {
    pub id: i64,
    pub company_id: i64,
    pub business_unit_id: i64,
    pub unit_name: String,
    pub product_id: i64,
    pub reason: Reason,
    pub change: Decimal,
    pub quantity_after: Decimal,
    pub note: Option<String>,
    pub document: Option<(Document, i64)>,
    pub user_id: Option<i64>,
    pub user_name: Option<String>,
    pub created_at: String,
}

const MOVEMENT_COLUMNS: &str =
    "m.id, m.company_id, m.business_unit_id, u.name AS unit_name, m.product_id, m.reason, m.change,
    m.quantity_after, m.note, m.document_kind, m.document_id, m.user_id, us.name AS user_name, m.created_at";

const MOVEMENT_JOINS: &str = "FROM stock_movements m JOIN business_units u ON u.id = m.business_unit_id
    LEFT JOIN users us ON us.id = m.user_id";

fn movement_from(r: &Row) -> rusqlite::Result<Movement> {
    let reason: Reason = r.get("reason")?;
    let kind: Option<Document> = r.get("document_kind")?;
    let document_id: Option<i64> = r.get("document_id")?;
    Ok(Movement {
        id: r.get("id")?,
        company_id: r.get("company_id")?,
        business_unit_id: r.get("business_unit_id")?,
        unit_name: r.get("unit_name")?,
        product_id: r.get("product_id")?,
        reason,
        change: quantity(r, "change")?,
        quantity_after: quantity(r, "quantity_after")?,
        note: r.get("note")?,
        document: kind.zip(document_id),
        user_id: r.get("user_id")?,
        user_name: r.get("user_name")?,
        created_at: r.get("created_at")?,
    })
}

pub fn movement(conn: &Connection, id: i64) -> Result<Option<Movement>> {
    Ok(conn
        .query_row(
            &format!("SELECT {MOVEMENT_COLUMNS} {MOVEMENT_JOINS} WHERE m.id = :id"),
            named_params! {":id": id},
            movement_from,
        )
        .optional()?)
}

/// The movements a document made, oldest first.
pub fn document_movements(conn: &Connection, kind: Document, document_id: i64) -> Result<Vec<Movement>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {MOVEMENT_COLUMNS} {MOVEMENT_JOINS}
         WHERE m.document_kind = :kind AND m.document_id = :document ORDER BY m.id"
    ))?;
    let rows = stmt.query_map(named_params! {":kind": kind, ":document": document_id}, movement_from)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

pub fn delete_document_movements(conn: &Connection, kind: Document, document_id: i64) -> Result<()> {
    conn.execute(
        "DELETE FROM stock_movements WHERE document_kind = :kind AND document_id = :document",
        named_params! {":kind": kind, ":document": document_id},
    )?;
    Ok(())
}

/// Per article, the sum of `quantities`; a sum beyond a decimal is `Overflow`.
fn sums(
    quantities: impl Iterator<Item = rusqlite::Result<(i64, Decimal)>>,
) -> Result<BTreeMap<i64, Decimal>> {
    let mut sums: BTreeMap<i64, Decimal> = BTreeMap::new();
    for row in quantities {
        let (product_id, quantity) = row?;
        let sum = sums.entry(product_id).or_default();
        *sum = crate::domain::money::add(*sum, quantity)?;
    }
    Ok(sums)
}

/// What the note `wtn_id` took off its unit's shelf, per article.
pub fn note_moved(conn: &Connection, wtn_id: i64) -> Result<BTreeMap<i64, Decimal>> {
    let mut stmt = conn.prepare_cached(
        "SELECT product_id, change FROM stock_movements
         WHERE document_kind = 'wtn' AND document_id = :wtn AND reason = 'wtn_out'",
    )?;
    let rows = stmt
        .query_map(named_params! {":wtn": wtn_id}, |r| Ok((r.get("product_id")?, -quantity(r, "change")?)))?;
    sums(rows)
}

/// What the invoices linked to the note `wtn_id` count of it, per article (net of what their
/// cancellations gave back to it).
pub fn note_invoiced(conn: &Connection, wtn_id: i64) -> Result<BTreeMap<i64, Decimal>> {
    let mut stmt = conn.prepare_cached("SELECT product_id, counted FROM wtn_invoiced WHERE wtn_id = :wtn")?;
    let rows = stmt
        .query_map(named_params! {":wtn": wtn_id}, |r| Ok((r.get("product_id")?, quantity(r, "counted")?)))?;
    sums(rows)
}

/// What the linked invoice `sale_id` still counts against its note, per article.
pub fn sale_counted(conn: &Connection, sale_id: i64) -> Result<BTreeMap<i64, Decimal>> {
    let mut stmt =
        conn.prepare_cached("SELECT product_id, counted FROM wtn_invoiced WHERE sale_id = :sale")?;
    let rows = stmt.query_map(named_params! {":sale": sale_id}, |r| {
        Ok((r.get("product_id")?, quantity(r, "counted")?))
    })?;
    sums(rows)
}

/// A row of `wtn_invoiced`: `counted` of an article, positive for a linked invoice, negative for
/// its cancellation (`document_id`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counted {
    pub wtn_id: i64,
    pub sale_id: i64,
    pub document_id: i64,
    pub product_id: i64,
    pub counted: Decimal,
}

pub fn insert_counted(conn: &Connection, c: &Counted) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO wtn_invoiced (wtn_id, sale_id, document_id, product_id, counted)
         VALUES (:wtn, :sale, :document, :product, :counted)",
    )?
    .execute(named_params! {
        ":wtn": c.wtn_id, ":sale": c.sale_id, ":document": c.document_id, ":product": c.product_id,
        ":counted": Money(c.counted),
    })?;
    Ok(())
}

/// What the document `document_id` counted against a note goes with it (it was given up).
pub fn delete_counted(conn: &Connection, document_id: i64) -> Result<()> {
    conn.prepare_cached("DELETE FROM wtn_invoiced WHERE document_id = :document")?
        .execute(named_params! {":document": document_id})?;
    Ok(())
}

/// A linked invoice's net count of one article of its note, with the unit it sold from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SaleCount {
    pub sale_id: i64,
    pub company_id: i64,
    pub business_unit_id: i64,
    pub user_id: Option<i64>,
    pub product_id: i64,
    pub counted: Decimal,
}

/// Per linked invoice and article, what the invoices count of the note `wtn_id` (net).
pub fn counted_against(conn: &Connection, wtn_id: i64) -> Result<Vec<SaleCount>> {
    let mut stmt = conn.prepare(
        "SELECT w.sale_id, i.company_id, i.business_unit_id, i.user_id, w.product_id, w.counted
         FROM wtn_invoiced w JOIN invoices i ON i.id = w.sale_id
         WHERE w.wtn_id = :wtn AND i.business_unit_id IS NOT NULL ORDER BY w.id",
    )?;
    let rows = stmt.query_map(named_params! {":wtn": wtn_id}, |r| {
        Ok(SaleCount {
            sale_id: r.get("sale_id")?,
            company_id: r.get("company_id")?,
            business_unit_id: r.get("business_unit_id")?,
            user_id: r.get("user_id")?,
            product_id: r.get("product_id")?,
            counted: quantity(r, "counted")?,
        })
    })?;
    let mut net: Vec<SaleCount> = Vec::new();
    for row in rows {
        let row = row?;
        match net.iter_mut().find(|n| n.sale_id == row.sale_id && n.product_id == row.product_id) {
            Some(n) => n.counted = crate::domain::money::add(n.counted, row.counted)?,
            None => net.push(row),
        }
    }
    Ok(net)
}

/// Every count against the note `wtn_id` goes (the note was given up).
pub fn delete_note_counts(conn: &Connection, wtn_id: i64) -> Result<()> {
    conn.execute("DELETE FROM wtn_invoiced WHERE wtn_id = :wtn", named_params! {":wtn": wtn_id})?;
    Ok(())
}

/// The movements of one article, newest first; of one unit when `business_unit_id` is given.
pub fn history(
    conn: &Connection,
    company_id: i64,
    product_id: i64,
    business_unit_id: Option<i64>,
    limit: i64,
    offset: i64,
) -> Result<Vec<Movement>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {MOVEMENT_COLUMNS} {MOVEMENT_JOINS}
         WHERE m.company_id = :company AND m.product_id = :product
           AND (:unit IS NULL OR m.business_unit_id = :unit)
         ORDER BY m.id DESC LIMIT :limit OFFSET :offset"
    ))?;
    let rows = stmt.query_map(
        named_params! {
            ":company": company_id, ":product": product_id, ":unit": business_unit_id, ":limit": limit,
            ":offset": offset,
        },
        movement_from,
    )?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// One unit's quantity of an article.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitLevel {
    pub business_unit_id: i64,
    pub unit_name: String,
    pub quantity: Decimal,
}

/// What every unit of the company holds of one article (0 where it never held any).
pub fn product_levels(conn: &Connection, company_id: i64, product_id: i64) -> Result<Vec<UnitLevel>> {
    let mut stmt = conn.prepare(
        "SELECT u.id, u.name, s.quantity FROM business_units u
         LEFT JOIN stock_levels s ON s.business_unit_id = u.id AND s.product_id = :product
         WHERE u.company_id = :company ORDER BY u.id",
    )?;
    let rows = stmt.query_map(named_params! {":company": company_id, ":product": product_id}, |r| {
        Ok(UnitLevel {
            business_unit_id: r.get("id")?,
            unit_name: r.get("name")?,
            quantity: quantity(r, "quantity")?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// An article with what one unit holds of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shelf {
    pub article: Article,
    pub quantity: Decimal,
}

/// The company's inventory articles with the unit's quantities, by id; all of them when `ids`
/// is `None`.
pub fn shelves(
    conn: &Connection,
    company_id: i64,
    business_unit_id: i64,
    ids: Option<&[i64]>,
) -> Result<Vec<Shelf>> {
    let read = |r: &Row| Ok(Shelf { article: article_from(r)?, quantity: quantity(r, "quantity")? });
    let select = "SELECT p.id, p.code, p.name, p.unit_code, s.quantity FROM products p
         LEFT JOIN stock_levels s ON s.product_id = p.id AND s.business_unit_id = :unit
         WHERE p.company_id = :company AND p.service = 0";
    match ids {
        None => {
            let mut stmt = conn.prepare(&format!("{select} ORDER BY p.id"))?;
            let rows =
                stmt.query_map(named_params! {":company": company_id, ":unit": business_unit_id}, read)?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        }
        Some(ids) => {
            let mut stmt = conn.prepare(&format!("{select} AND p.id = :id"))?;
            let mut shelves = Vec::new();
            for id in ids {
                let found = stmt
                    .query_row(
                        named_params! {":company": company_id, ":unit": business_unit_id, ":id": id},
                        read,
                    )
                    .optional()?;
                shelves.extend(found);
            }
            Ok(shelves)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Store, fixtures};

    fn company(conn: &Connection, nuis: &str) -> (i64, i64) {
        let company = fixtures::company(conn, nuis);
        (company, fixtures::unit(conn, company, "Qendër", None))
    }

    #[test]
    fn levels_movements_and_settings_are_kept_per_unit_and_company() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        store
            .write_blocking(|tx| -> Result<_> {
                let (mine, unit) = company(tx, "L41323036D");
                let (theirs, _) = company(tx, "M01234567A");
                let flour = fixtures::product(tx, mine, "MIELL", false);
                let delivery = fixtures::product(tx, mine, "TRANSPORT", true);
                let their_flour = fixtures::product(tx, theirs, "MIELL", false);

                // Only the company's own inventory articles are found.
                assert_eq!(article_by_code(tx, mine, "MIELL")?.map(|a| a.id), Some(flour));
                assert_eq!(article_by_code(tx, mine, "TRANSPORT")?, None);
                assert_eq!(article_by_code(tx, theirs, "MIELL")?.map(|a| a.id), Some(their_flour));
                assert_eq!(article(tx, mine, their_flour)?, None);
                assert_eq!(article(tx, mine, delivery)?, None);

                // A shelf never touched holds 0; a level is kept exactly.
                assert_eq!(levels(tx, unit, &[flour])?[&flour], Decimal::ZERO);
                set_level(tx, mine, unit, flour, "2.5".parse().unwrap())?;
                set_level(tx, mine, unit, flour, "1.25".parse().unwrap())?;
                assert_eq!(levels(tx, unit, &[flour])?[&flour], "1.25".parse().unwrap());
                let shelves = shelves(tx, mine, unit, None)?;
                assert_eq!(shelves.len(), 1, "services are not on a shelf");
                assert_eq!(shelves[0].quantity, "1.25".parse().unwrap());

                let sale = NewMovement {
                    company_id: mine,
                    business_unit_id: unit,
                    product_id: flour,
                    reason: Reason::Sale,
                    change: "-1.25".parse().unwrap(),
                    quantity_after: Decimal::ZERO,
                    note: None,
                    document: Some((Document::Invoice, 41)),
                    user_id: None,
                };
                let sold = insert_movement(tx, &sale)?;
                assert_eq!(movement(tx, sold)?.map(|m| (m.company_id, m.change)), Some((mine, sale.change)));
                insert_movement(
                    tx,
                    &NewMovement {
                        reason: Reason::Count,
                        document: None,
                        note: Some("inventar"),
                        ..sale.clone()
                    },
                )?;
                let history = history(tx, mine, flour, None, 10, 0)?;
                assert_eq!(
                    history.iter().map(|m| m.reason).collect::<Vec<_>>(),
                    [Reason::Count, Reason::Sale]
                );
                assert_eq!(history[1].document, Some((Document::Invoice, 41)));
                assert_eq!(history[0].unit_name, "Qendër");
                assert!(self::history(tx, theirs, flour, None, 10, 0)?.is_empty());
                assert_eq!(document_movements(tx, Document::Invoice, 41)?.len(), 1);
                delete_document_movements(tx, Document::Invoice, 41)?;
                assert_eq!(self::history(tx, mine, flour, Some(unit), 10, 0)?.len(), 1);
                assert_eq!(product_levels(tx, mine, flour)?[0].quantity, "1.25".parse().unwrap());

                assert_eq!(settings(tx, mine)?, Settings { enabled: true, enforce: false });
                let user = fixtures::user(tx, mine, unit, "ana@shop.al");
                save_settings(tx, mine, Settings { enabled: true, enforce: true }, user)?;
                assert!(settings(tx, mine)?.enforce);
                assert!(!settings(tx, theirs)?.enforce);
                Ok(())
            })
            .unwrap();
    }
}
