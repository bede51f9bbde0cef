//! Stock of inventory articles per business unit.
//!
//! Documents move it inside their own write transaction, through the functions here:
//! * [`take`]: a sale takes its lines off the issuing unit's shelf; a note takes them off its
//!   unit's shelf, and puts them on the receiving unit's when it goes to one of the company's
//!   units. With `enforce` on, a line beyond the shelf refuses the whole document (400).
//! * [`give_back`]: a cancellation puts back what its lines name, on the shelf the sale took
//!   them from.
//! * [`forget`]: a document given up (refused by the CIS on its first call) never moved anything.
//!
//! An invoice may name the warehouse transfer note its goods already left with (`wtn_id`): its
//! lines then count against what the note took off the shelf and still no invoice counted
//! ([`rules::against_note`]), and only the rest leaves the shelf; its cancellation gives back to
//! the note what it counted before the shelf gets anything. So goods leave once, however they
//! are invoiced (in one invoice, in several, or again after a cancellation).
//!
//! A line moves stock when its code is one of the company's inventory articles (products with
//! `service` false); other lines (services, codes not in the catalog) move nothing.
//!
//! The owner counts shelves, books deliveries and corrects mistakes; each movement keeps who,
//! when and why, and an article's history is readable.

use std::collections::BTreeMap;

use rust_decimal::Decimal;

use super::{Catalog, Error, Result, audit};
use crate::domain::audit::Action;
use crate::domain::stock::{self as rules, AdjustmentInput, AgainstNote, Reason, TakeError, Want};
use crate::domain::validation::FieldErrors;
use crate::store::accounts::{self, Caller};
use crate::store::fiscal_queue::Document;
use crate::store::invoices::WtnRef;
use crate::store::stock::{self as db, Article, Counted, Movement, NewMovement, Settings, Shelf, UnitLevel};
use crate::store::{self, products};

/// One line of a document, as stock sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct GoodsLine {
    pub code: String,
    pub quantity: Decimal,
}

/// An invoice naming the note its goods left with: the invoice (for a cancellation, the one it
/// reverses) and the note.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoteLink {
    pub wtn_id: i64,
    pub sale_id: i64,
}

/// What a document moves: its lines, from (or back to) which unit, and where they go.
#[derive(Debug, Clone)]
pub struct Goods<'a> {
    pub company_id: i64,
    pub user_id: Option<i64>,
    /// The document, by its table and id.
    pub document: (Document, i64),
    /// The unit whose shelf the goods leave (or return to, for a cancellation).
    pub business_unit_id: i64,
    /// Named in a shortage.
    pub unit_name: &'a str,
    /// The company's unit a note takes the goods to.
    pub to_unit: Option<i64>,
    pub lines: &'a [GoodsLine],
    /// The body's name for the lines, for the shortage's keys: `lines` or `invoice_lines`.
    pub lines_field: &'a str,
    /// The note an invoice's goods left with.
    pub note: Option<NoteLink>,
}

/// The lines that name an inventory article of the company, as wants in body order.
fn wants(tx: &rusqlite::Connection, company_id: i64, lines: &[GoodsLine]) -> store::Result<Vec<Want>> {
    let mut found: BTreeMap<&str, Option<Article>> = BTreeMap::new();
    let mut wants = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        if !found.contains_key(line.code.as_str()) {
            found.insert(&line.code, db::article_by_code(tx, company_id, &line.code)?);
        }
        if let Some(Some(article)) = found.get(line.code.as_str()) {
            wants.push(Want {
                index,
                product_id: article.id,
                code: article.code.clone(),
                quantity: line.quantity,
            });
        }
    }
    Ok(wants)
}

/// Writes the unit's new levels and one movement per article that changed.
fn record(
    tx: &rusqlite::Connection,
    goods: &Goods,
    unit: i64,
    reason: Reason,
    before: &BTreeMap<i64, Decimal>,
    after: &BTreeMap<i64, Decimal>,
) -> store::Result<()> {
    for (product_id, level) in after {
        let change = crate::domain::money::sub(*level, before.get(product_id).copied().unwrap_or_default())?;
        db::set_level(tx, goods.company_id, unit, *product_id, *level)?;
        db::insert_movement(
            tx,
            &NewMovement {
                company_id: goods.company_id,
                business_unit_id: unit,
                product_id: *product_id,
                reason,
                change,
                quantity_after: *level,
                note: None,
                document: Some(goods.document),
                user_id: goods.user_id,
            },
        )?;
    }
    Ok(())
}

fn shortage(shortages: &[rules::Shortage], lines_field: &str, unit_name: &str) -> Error {
    Error::Incomplete {
        message: "There is not enough stock on the shelf for these lines.".into(),
        errors: shortages.iter().map(|s| s.message(lines_field, unit_name)).collect(),
    }
}

fn ids(wants: &[Want]) -> Vec<i64> {
    let mut ids: Vec<i64> = wants.iter().map(|w| w.product_id).collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// What is left of each article the note took off the shelf for the next invoice naming it.
fn open_on_note(tx: &rusqlite::Connection, wtn_id: i64) -> store::Result<BTreeMap<i64, Decimal>> {
    let mut open = db::note_moved(tx, wtn_id)?;
    for (product_id, invoiced) in db::note_invoiced(tx, wtn_id)? {
        let left = open.entry(product_id).or_default();
        *left = crate::domain::money::sub(*left, invoiced)?;
    }
    Ok(open)
}

/// Writes what a linked document counted against its note (`back`: a cancellation gave it back).
fn count(
    tx: &rusqlite::Connection,
    goods: &Goods,
    note: NoteLink,
    counted: &BTreeMap<i64, Decimal>,
    back: bool,
) -> store::Result<()> {
    for (product_id, quantity) in counted {
        db::insert_counted(
            tx,
            &Counted {
                wtn_id: note.wtn_id,
                sale_id: note.sale_id,
                document_id: goods.document.1,
                product_id: *product_id,
                counted: if back { -*quantity } else { *quantity },
            },
        )?;
    }
    Ok(())
}

/// In an invoice's transaction, before its number: the note it names is still the company's,
/// and not every article it took off the shelf is invoiced already (a linked invoice would then
/// count nothing against it: 422 `wtn_id`, the link is a mistake).
pub fn check_note(tx: &rusqlite::Connection, company_id: i64, note: &WtnRef) -> Result<()> {
    if crate::store::wtn::get(tx, company_id, note.id)?.is_none() {
        return Err(
            FieldErrors::one("wtn_id", "No warehouse transfer note of the company has this id.").into()
        );
    }
    let moved = db::note_moved(tx, note.id)?;
    let open = open_on_note(tx, note.id)?;
    if !moved.is_empty() && open.values().all(|left| *left <= Decimal::ZERO) {
        return Err(FieldErrors::one(
            "wtn_id",
            format!(
                "Everything the warehouse transfer note {} carried is invoiced already; cancel the invoice that counts it to name the note again.",
                note.number
            ),
        )
        .into());
    }
    Ok(())
}

/// A sale or a note takes its goods off the unit's shelf (and a note between the company's
/// units puts them on the receiving one's), in the document's transaction; a sale naming the
/// note its goods left with takes only what the note did not carry. With `enforce` on, a line
/// beyond the shelf is `Err` (400 naming the line and what is left), which rolls the document's
/// transaction back.
pub fn take(tx: &rusqlite::Connection, goods: &Goods) -> Result<()> {
    let settings = db::settings(tx, goods.company_id)?;
    if !settings.enabled && goods.note.is_none() {
        return Ok(());
    }
    let wants = wants(tx, goods.company_id, goods.lines)?;
    let split = match goods.note {
        Some(note) => rules::against_note(&open_on_note(tx, note.wtn_id)?, &wants),
        None => AgainstNote { counted: BTreeMap::new(), rest: wants },
    };
    // The note's count is kept with stock off too: the note is invoiced all the same.
    let wants = if settings.enabled { split.rest } else { Vec::new() };
    let ids = ids(&wants);
    let before = db::levels(tx, goods.business_unit_id, &ids)?;
    let after = match rules::take(&before, &wants, settings.enforce) {
        Ok(after) => after,
        Err(TakeError::Short(lines)) => return Err(shortage(&lines, goods.lines_field, goods.unit_name)),
        Err(TakeError::Overflow) => return Err(store::Error::Overflow.into()),
    };
    if let Some(note) = goods.note {
        count(tx, goods, note, &split.counted, false)?;
    }
    if wants.is_empty() {
        return Ok(());
    }
    let (out, into) = match goods.document.0 {
        Document::Wtn => (Reason::WtnOut, Reason::WtnIn),
        Document::Invoice | Document::CashAction | Document::Einvoice => (Reason::Sale, Reason::WtnIn),
    };
    record(tx, goods, goods.business_unit_id, out, &before, &after)?;
    if let Some(to) = goods.to_unit {
        let before = db::levels(tx, to, &ids)?;
        let after = rules::put(&before, &wants).map_err(store::Error::from)?;
        record(tx, goods, to, into, &before, &after)?;
    }
    Ok(())
}

/// A cancellation (whole or partial) puts back on `goods.business_unit_id`'s shelf what its
/// lines name, in the cancellation's transaction. `goods.document` is the corrective document.
/// Of a sale naming a note, what the sale counted against the note goes back to the note first.
pub fn give_back(tx: &rusqlite::Connection, goods: &Goods) -> store::Result<()> {
    let enabled = db::settings(tx, goods.company_id)?.enabled;
    if !enabled && goods.note.is_none() {
        return Ok(());
    }
    let mut wants = wants(tx, goods.company_id, goods.lines)?;
    if let Some(note) = goods.note {
        let split = rules::against_note(&db::sale_counted(tx, note.sale_id)?, &wants);
        count(tx, goods, note, &split.counted, true)?;
        wants = split.rest;
    }
    if !enabled || wants.is_empty() {
        return Ok(());
    }
    let before = db::levels(tx, goods.business_unit_id, &ids(&wants))?;
    let after = rules::put(&before, &wants)?;
    record(tx, goods, goods.business_unit_id, Reason::Cancellation, &before, &after)
}

/// A note given up while invoices named it: what they counted against it leaves their shelves
/// now, as their own sales, so that the goods still leave once; the invoices name no note any
/// more.
fn note_given_up(tx: &rusqlite::Connection, wtn_id: i64) -> store::Result<()> {
    for sale in db::counted_against(tx, wtn_id)? {
        if sale.counted <= Decimal::ZERO {
            continue;
        }
        let goods = Goods {
            company_id: sale.company_id,
            user_id: sale.user_id,
            document: (Document::Invoice, sale.sale_id),
            business_unit_id: sale.business_unit_id,
            unit_name: "",
            to_unit: None,
            lines: &[],
            lines_field: "lines",
            note: None,
        };
        let before = db::levels(tx, sale.business_unit_id, &[sale.product_id])?;
        let want =
            Want { index: 0, product_id: sale.product_id, code: String::new(), quantity: sale.counted };
        let after = match rules::take(&before, &[want], false) {
            Ok(after) => after,
            Err(_) => return Err(store::Error::Overflow),
        };
        record(tx, &goods, sale.business_unit_id, Reason::Sale, &before, &after)?;
    }
    db::delete_note_counts(tx, wtn_id)?;
    crate::store::invoices::unlink_wtn(tx, wtn_id)
}

/// Undoes every movement of a document that is given up, as if it had never been issued (and
/// what it counted against a note, or what invoices counted against it when it is a note).
pub fn forget(tx: &rusqlite::Connection, kind: Document, document_id: i64) -> store::Result<()> {
    match kind {
        Document::Invoice => db::delete_counted(tx, document_id)?,
        Document::Wtn => note_given_up(tx, document_id)?,
        Document::CashAction | Document::Einvoice => {}
    }
    for movement in db::document_movements(tx, kind, document_id)? {
        let level = db::levels(tx, movement.business_unit_id, &[movement.product_id])?
            .get(&movement.product_id)
            .copied()
            .unwrap_or_default();
        let restored = crate::domain::money::sub(level, movement.change)?;
        db::set_level(tx, movement.company_id, movement.business_unit_id, movement.product_id, restored)?;
    }
    db::delete_document_movements(tx, kind, document_id)
}

/// An owner's adjustment as it was recorded.
#[derive(Debug, Clone)]
pub struct Adjusted {
    pub movement: Movement,
    pub article: Article,
}

/// One article's quantities and movements.
#[derive(Debug, Clone)]
pub struct History {
    pub article: Article,
    pub levels: Vec<UnitLevel>,
    pub movements: Vec<Movement>,
}

/// The mobile stock list: the caller's unit and what it holds.
#[derive(Debug, Clone)]
pub struct MobileStock {
    pub settings: Settings,
    pub unit_id: i64,
    pub unit_name: String,
    pub shelves: Vec<Shelf>,
}

/// Settings to change; `None` keeps what is stored.
#[derive(Debug, Clone, Copy, Default)]
pub struct SettingsUpdate {
    pub enabled: Option<bool>,
    pub enforce: Option<bool>,
}

impl Catalog<'_> {
    pub async fn stock_settings(&self, caller: &Caller) -> Result<Settings> {
        let company_id = caller.company.id;
        Ok(self.services.store.read(move |c| db::settings(c, company_id)).await?)
    }

    pub async fn update_stock_settings(&self, caller: &Caller, update: SettingsUpdate) -> Result<Settings> {
        let (company_id, user_id) = (caller.company.id, caller.user.id);
        let entry = audit::by(caller, Action::SettingsStock, company_id);
        let fields = |s: Settings| serde_json::json!({ "enabled": s.enabled, "enforce": s.enforce });
        self.services
            .store
            .write(move |tx| {
                let stored = db::settings(tx, company_id)?;
                let settings = Settings {
                    enabled: update.enabled.unwrap_or(stored.enabled),
                    enforce: update.enforce.unwrap_or(stored.enforce),
                };
                db::save_settings(tx, company_id, settings, user_id)?;
                crate::store::audit::append(tx, &entry.before(fields(stored)).after(fields(settings)))?;
                Ok(settings)
            })
            .await
    }

    /// The company's unit `id`, or the caller's own when `None`; another company's is 422.
    async fn unit_of(&self, caller: &Caller, id: Option<i64>) -> Result<accounts::BusinessUnit> {
        let Some(id) = id else {
            return caller.unit.clone().ok_or_else(|| {
                Error::from(FieldErrors::one("business_unit_id", "The user has no business unit: name one."))
            });
        };
        let company_id = caller.company.id;
        self.services.store.read(move |c| accounts::unit(c, company_id, id)).await?.ok_or_else(|| {
            Error::from(FieldErrors::one("business_unit_id", "No business unit of the company has this id."))
        })
    }

    /// The company's inventory article `id`: another company's is 404, a service 422.
    async fn article(&self, caller: &Caller, id: i64) -> Result<Article> {
        let company_id = caller.company.id;
        let (article, product) = self
            .services
            .store
            .read(move |c| Ok((db::article(c, company_id, id)?, products::product(c, company_id, id)?)))
            .await?;
        match (article, product) {
            (Some(article), _) => Ok(article),
            (None, Some(_)) => Err(FieldErrors::one(
                "product_id",
                "This product is a service (service: true): only inventory articles have stock.",
            )
            .into()),
            (None, None) => Err(Error::NotFound("Product".into())),
        }
    }

    /// The owner counts a shelf, books a delivery or corrects a quantity.
    #[tracing::instrument(skip_all, fields(company = caller.company.id, product = product_id), err(level = "info"))]
    pub async fn adjust_stock(
        &self,
        caller: &Caller,
        product_id: i64,
        unit_id: Option<i64>,
        input: AdjustmentInput,
    ) -> Result<Adjusted> {
        let adjustment = rules::check_adjustment(&input)?;
        let unit = self.unit_of(caller, unit_id).await?;
        let article = self.article(caller, product_id).await?;
        let (company_id, user_id, product) = (caller.company.id, caller.user.id, article.id);
        let entry = audit::by(caller, Action::StockAdjust, product);
        let movement = self
            .services
            .store
            .write(move |tx| {
                let settings = db::settings(tx, company_id)?;
                let level = db::levels(tx, unit.id, &[product])?.get(&product).copied().unwrap_or_default();
                let adjusted = match rules::adjust(level, &adjustment, settings.enforce) {
                    Ok(adjusted) => adjusted,
                    Err(TakeError::Short(_)) => {
                        return Err(Error::Incomplete {
                            message: "There is not enough stock on the shelf for this correction.".into(),
                            errors: vec![format!(
                                "quantity: {} taken, {} left in {}",
                                -adjustment.quantity,
                                level.max(Decimal::ZERO).normalize(),
                                unit.name
                            )],
                        });
                    }
                    Err(TakeError::Overflow) => return Err(store::Error::Overflow.into()),
                };
                db::set_level(tx, company_id, unit.id, product, adjusted.after)?;
                let id = db::insert_movement(
                    tx,
                    &NewMovement {
                        company_id,
                        business_unit_id: unit.id,
                        product_id: product,
                        reason: adjustment.kind.reason(),
                        change: adjusted.change,
                        quantity_after: adjusted.after,
                        note: adjustment.note.as_deref(),
                        document: None,
                        user_id: Some(user_id),
                    },
                )?;
                let movement = db::movement(tx, id)?
                    .ok_or_else(|| Error::Vanished("the stock movement just written"))?;
                let entry = entry
                    .before(serde_json::json!({ "quantity": level.normalize().to_string() }))
                    .after(serde_json::json!({
                        "unit": movement.unit_name,
                        "reason": movement.reason.as_str(),
                        "change": movement.change.normalize().to_string(),
                        "quantity": movement.quantity_after.normalize().to_string(),
                        "note": movement.note,
                    }));
                crate::store::audit::append(tx, &entry)?;
                Ok(movement)
            })
            .await?;
        Ok(Adjusted { movement, article })
    }

    /// One article's quantity in every unit and its movements (of one unit when asked), newest first.
    pub async fn stock_history(
        &self,
        caller: &Caller,
        product_id: i64,
        unit_id: Option<i64>,
        limit: i64,
        offset: i64,
    ) -> Result<History> {
        let article = self.article(caller, product_id).await?;
        let unit = match unit_id {
            Some(id) => Some(self.unit_of(caller, Some(id)).await?.id),
            None => None,
        };
        let company_id = caller.company.id;
        let product = article.id;
        let (levels, movements) = self
            .services
            .store
            .read(move |c| {
                Ok((
                    db::product_levels(c, company_id, product)?,
                    db::history(c, company_id, product, unit, limit, offset)?,
                ))
            })
            .await?;
        Ok(History { article, levels, movements })
    }

    /// What the caller's unit holds of the company's inventory articles (`ids`, or all).
    pub async fn mobile_stock(&self, caller: &Caller, ids: Option<Vec<i64>>) -> Result<MobileStock> {
        let unit =
            caller.unit.clone().ok_or_else(|| Error::Refused("The user has no business unit.".into()))?;
        let (company_id, unit_id, wanted) = (caller.company.id, unit.id, ids.clone());
        let (settings, shelves) = self
            .services
            .store
            .read(move |c| {
                Ok((db::settings(c, company_id)?, db::shelves(c, company_id, unit_id, wanted.as_deref())?))
            })
            .await?;
        let missing: Vec<String> = ids
            .unwrap_or_default()
            .into_iter()
            .filter(|id| !shelves.iter().any(|s| s.article.id == *id))
            .map(|id| id.to_string())
            .collect();
        if !missing.is_empty() {
            return Err(FieldErrors::one(
                "ids",
                format!("No inventory article of the company has id {}.", missing.join(", ")),
            )
            .into());
        }
        Ok(MobileStock { settings, unit_id: unit.id, unit_name: unit.name, shelves })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Store, fixtures};

    struct Shop {
        company: i64,
        main: i64,
        second: i64,
        flour: i64,
    }

    fn shop(conn: &rusqlite::Connection) -> Shop {
        let company = fixtures::company(conn, "L41323036D");
        Shop {
            company,
            main: fixtures::unit(conn, company, "Qendër", None),
            second: fixtures::unit(conn, company, "Durrës", None),
            flour: fixtures::product(conn, company, "MIELL", false),
        }
    }

    fn line(code: &str, quantity: &str) -> GoodsLine {
        GoodsLine { code: code.into(), quantity: quantity.parse().unwrap() }
    }

    fn level(tx: &rusqlite::Connection, unit: i64, product: i64) -> Decimal {
        db::levels(tx, unit, &[product]).unwrap()[&product]
    }

    #[test]
    fn a_sale_takes_a_cancellation_gives_back_a_note_moves_and_a_given_up_document_never_happened() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        store
            .write_blocking(|tx| -> Result<()> {
                let shop = shop(tx);
                let sold = [line("MIELL", "3"), line("NOT-IN-CATALOG", "9"), line("MIELL", "1.5")];
                let goods = |document, lines: &'static [GoodsLine]| Goods {
                    company_id: shop.company,
                    user_id: None,
                    document,
                    business_unit_id: shop.main,
                    unit_name: "Qendër",
                    to_unit: None,
                    lines,
                    lines_field: "lines",
                    note: None,
                };
                let sale = Goods { lines: &sold, ..goods((Document::Invoice, 7), &[]) };
                take(tx, &sale)?;
                assert_eq!(level(tx, shop.main, shop.flour), "-4.5".parse().unwrap());

                // A partial cancellation of the sale gives back what its lines name.
                let cancelled = [line("MIELL", "1.5")];
                give_back(tx, &Goods { lines: &cancelled, ..goods((Document::Invoice, 8), &[]) })?;
                assert_eq!(level(tx, shop.main, shop.flour), "-3".parse().unwrap());
                let movements = db::document_movements(tx, Document::Invoice, 8)?;
                assert_eq!(
                    movements.iter().map(|m| (m.reason, m.change)).collect::<Vec<_>>(),
                    [(Reason::Cancellation, "1.5".parse().unwrap())]
                );

                // A note to the Durrës unit moves the goods between the shelves.
                let moved = [line("MIELL", "2")];
                let note =
                    Goods { lines: &moved, to_unit: Some(shop.second), ..goods((Document::Wtn, 1), &[]) };
                take(tx, &note)?;
                assert_eq!(
                    (level(tx, shop.main, shop.flour), level(tx, shop.second, shop.flour)),
                    ("-5".parse().unwrap(), Decimal::from(2))
                );

                // Given up: the note and the sale never happened (the cancellation's give-back stays).
                forget(tx, Document::Wtn, 1)?;
                forget(tx, Document::Invoice, 7)?;
                assert_eq!(
                    (level(tx, shop.main, shop.flour), level(tx, shop.second, shop.flour)),
                    ("1.5".parse().unwrap(), Decimal::ZERO)
                );
                assert!(db::document_movements(tx, Document::Wtn, 1)?.is_empty());

                // With enforce on a line beyond the shelf is refused and nothing is written.
                db::save_settings(
                    tx,
                    shop.company,
                    Settings { enabled: true, enforce: true },
                    fixtures::user(tx, shop.company, shop.main, "ana@shop.al"),
                )?;
                let too_much = [line("MIELL", "1"), line("MIELL", "1")];
                let refused = take(tx, &Goods { lines: &too_much, ..goods((Document::Invoice, 9), &[]) });
                match refused {
                    Err(Error::Incomplete { errors, .. }) => {
                        assert_eq!(errors, ["lines.1.quantity: 1 of MIELL asked, 0.5 left in Qendër"])
                    }
                    other => panic!("a shortage expected, got {other:?}"),
                }
                assert_eq!(level(tx, shop.main, shop.flour), "1.5".parse().unwrap());
                assert!(db::document_movements(tx, Document::Invoice, 9)?.is_empty());
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn a_sale_naming_a_note_counts_against_it_and_whatever_is_given_up_the_goods_leave_once() {
        use crate::store::{invoices, wtn};
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        store
            .write_blocking(|tx| -> Result<()> {
                let shop = shop(tx);
                let goods = |document, lines: &'static [GoodsLine], note| Goods {
                    company_id: shop.company,
                    user_id: None,
                    document,
                    business_unit_id: shop.main,
                    unit_name: "Qendër",
                    to_unit: None,
                    lines,
                    lines_field: "lines",
                    note,
                };
                let carried = [line("MIELL", "4")];
                let issue_note = |ord_num| -> Result<WtnRef> {
                    let id = wtn::insert(tx, &wtn::tests::note(shop.company, shop.main, ord_num, None))?;
                    take(tx, &Goods { lines: &carried, ..goods((Document::Wtn, id), &[], None) })?;
                    Ok(invoices::wtn_ref(tx, id)?.unwrap())
                };
                let sell = |n, note: &WtnRef, lines: &[GoodsLine]| -> Result<i64> {
                    let mut sale = invoices::tests::invoice(shop.company, n, "CASH", "2026-03-14", None);
                    sale.business_unit_id = Some(shop.main);
                    sale.wtn_id = Some(note.id);
                    let id = invoices::insert(tx, &sale)?;
                    let link = Some(NoteLink { wtn_id: note.id, sale_id: id });
                    take(tx, &Goods { lines, ..goods((Document::Invoice, id), &[], link) })?;
                    Ok(id)
                };

                // The note takes 4 sacks; a sale of 5 naming it takes only the fifth.
                let first = issue_note(1)?;
                check_note(tx, shop.company, &first)?;
                let sold = sell(1, &first, &[line("MIELL", "5")])?;
                assert_eq!(level(tx, shop.main, shop.flour), Decimal::from(-5));
                assert!(
                    matches!(check_note(tx, shop.company, &first), Err(Error::Invalid(_))),
                    "everything it carried is invoiced"
                );

                // The note is given up: the 4 the sale counted leave the shelf now, as the sale's.
                forget(tx, Document::Wtn, first.id)?;
                wtn::delete(tx, first.id)?;
                assert_eq!(level(tx, shop.main, shop.flour), Decimal::from(-5));
                let sale_moved: Vec<Decimal> =
                    db::document_movements(tx, Document::Invoice, sold)?.iter().map(|m| m.change).collect();
                assert_eq!(sale_moved, [Decimal::from(-1), Decimal::from(-4)]);
                assert_eq!(invoices::get(tx, shop.company, sold)?.unwrap().wtn_id, None);

                // A sale naming a note is given up: what it counted goes with it, the note is open.
                let second = issue_note(2)?;
                let given_up = sell(2, &second, &[line("MIELL", "3")])?;
                assert_eq!(level(tx, shop.main, shop.flour), Decimal::from(-9));
                forget(tx, Document::Invoice, given_up)?;
                invoices::delete(tx, given_up)?;
                assert_eq!(open_on_note(tx, second.id)?[&shop.flour], Decimal::from(4));
                assert_eq!(level(tx, shop.main, shop.flour), Decimal::from(-9));
                Ok(())
            })
            .unwrap();
    }
}
