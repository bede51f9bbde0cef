//! What the HQ's reports read beyond the sales totals: the shops' VAT, product and buyer totals,
//! their tills, days, users, notes and corrective documents, each from a typed table derived
//! from the shipped rows (indexed by day), in the row type the shop's store reads, so the shop's
//! own report rules add them up.

use std::collections::{BTreeMap, HashMap};
use std::str::FromStr;

use rust_decimal::Decimal;
use tokio_postgres::GenericClient;

use super::Result;
use super::filter::{Filter, Narrowed, Values, refs};
use crate::domain::cash_register::{ActionType, Movement, Purpose};
use crate::domain::day_book::DayBook;
use crate::domain::report::ReportKind;
use crate::services::reports::{ReversalLine, stored_time};
use crate::store::invoices::report_totals::{amount, quantity};
use crate::store::reports::{ClientRow, DayRow, MovementRow, ProductRow, VatRow};

fn decimal(text: Option<String>) -> Decimal {
    text.as_deref().and_then(|t| Decimal::from_str(t).ok()).unwrap_or_default()
}

const VAT: Narrowed = Narrowed { day: "day", prefix: "", tcr: true, operator: true };
const PRODUCTS: Narrowed = Narrowed { day: "day", prefix: "", tcr: true, operator: false };
const CLIENTS: Narrowed = Narrowed { day: "day", prefix: "", tcr: false, operator: false };

pub async fn vat<C: GenericClient>(client: &C, f: &Filter) -> Result<Vec<VatRow>> {
    let (conditions, values) = f.on(VAT);
    let rows = client
        .query(
            &format!(
                "SELECT kind, vat_rate, exemption, SUM(documents)::bigint, SUM(lines)::bigint, SUM(net)::bigint,
                     SUM(vat)::bigint
                 FROM report_vat WHERE {conditions} GROUP BY kind, vat_rate, exemption"
            ),
            &refs(&values),
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| {
            let exemption: String = r.get(2);
            VatRow {
                kind: ReportKind::parse(r.get(0)).unwrap_or(ReportKind::Cash),
                vat_rate: decimal(r.get(1)),
                exemption: (!exemption.is_empty()).then_some(exemption),
                documents: r.get(3),
                lines: r.get(4),
                net: amount(r.get(5)),
                vat: amount(r.get(6)),
            }
        })
        .collect())
}

/// Every product sold, by code across the shops; its name and unit as the latest day named it.
pub async fn products<C: GenericClient>(client: &C, f: &Filter) -> Result<Vec<ProductRow>> {
    let (conditions, values) = f.on(PRODUCTS);
    let rows = client
        .query(
            &format!(
                "SELECT product_code, (array_agg(product_name ORDER BY day DESC))[1],
                     (array_agg(unit ORDER BY day DESC))[1], SUM(lines)::bigint, SUM(quantity)::bigint,
                     SUM(net)::bigint, SUM(vat)::bigint
                 FROM report_products WHERE {conditions} GROUP BY product_code"
            ),
            &refs(&values),
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| ProductRow {
            product_code: r.get(0),
            product_name: r.get(1),
            unit: r.get(2),
            lines: r.get(3),
            quantity: quantity(r.get(4)),
            net: amount(r.get(5)),
            vat: amount(r.get(6)),
        })
        .collect())
}

/// Every buyer, by its key across the shops; its name and ids as the latest day had them (the
/// client id is the latest shop's own).
pub async fn clients<C: GenericClient>(client: &C, f: &Filter) -> Result<Vec<ClientRow>> {
    let (conditions, values) = f.on(CLIENTS);
    let rows = client
        .query(
            &format!(
                "SELECT buyer_key, (array_agg(client_id ORDER BY day DESC))[1],
                     (array_agg(buyer_name ORDER BY day DESC))[1], (array_agg(buyer_id_type ORDER BY day DESC))[1],
                     (array_agg(buyer_id_value ORDER BY day DESC))[1], SUM(documents)::bigint,
                     SUM(quantity)::bigint, SUM(net)::bigint, SUM(vat)::bigint, SUM(gross)::bigint
                 FROM report_clients WHERE {conditions} GROUP BY buyer_key"
            ),
            &refs(&values),
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| ClientRow {
            buyer_key: r.get(0),
            client_id: r.get(1),
            name: r.get(2),
            id_type: r.get(3),
            id_value: r.get(4),
            documents: r.get(5),
            quantity: quantity(r.get(6)),
            net: amount(r.get(7)),
            vat: amount(r.get(8)),
            gross: amount(r.get(9)),
        })
        .collect())
}

/// Each shop's users: id to (name, operator code), by shop.
pub async fn users<C: GenericClient>(
    client: &C,
    shop_id: Option<i64>,
) -> Result<BTreeMap<i64, HashMap<i64, (String, Option<String>)>>> {
    let rows = client
        .query(
            "SELECT shop_id, id, name, operator_code FROM users WHERE $1::bigint IS NULL OR shop_id = $1",
            &[&shop_id],
        )
        .await?;
    let mut by_shop: BTreeMap<i64, HashMap<i64, (String, Option<String>)>> = BTreeMap::new();
    for r in &rows {
        by_shop
            .entry(r.get(0))
            .or_default()
            .insert(r.get(1), (r.get::<_, Option<String>>(2).unwrap_or_default(), r.get(3)));
    }
    Ok(by_shop)
}

/// The shops' TCRs by code (a code the CIS gave is one TCR's): device name, branch id.
pub async fn tcrs<C: GenericClient>(
    client: &C,
    shop_id: Option<i64>,
) -> Result<HashMap<String, (String, i64)>> {
    let rows = client
        .query(
            "SELECT tcr_code, name, business_unit_id FROM fiscal_devices
             WHERE tcr_code IS NOT NULL AND ($1::bigint IS NULL OR shop_id = $1) ORDER BY shop_id, id",
            &[&shop_id],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| {
            (
                r.get(0),
                (
                    r.get::<_, Option<String>>(1).unwrap_or_default(),
                    r.get::<_, Option<i64>>(2).unwrap_or_default(),
                ),
            )
        })
        .collect())
}

/// The conditions on a shop's days or cash actions (`r`) as the shop's store puts them: the
/// period's business days, the TCR asked for or the branch's TCRs.
fn on_tills(f: &Filter) -> (String, Values) {
    let mut sql = "r.business_day >= $1 AND r.business_day <= $2".to_string();
    let mut values: Values = vec![Box::new(f.period.from.to_string()), Box::new(f.period.to.to_string())];
    if let Some(shop) = f.shop_id {
        values.push(Box::new(shop));
        sql.push_str(&format!(" AND r.shop_id = ${}", values.len()));
    }
    if let Some(code) = &f.tcr_code {
        values.push(Box::new(code.clone()));
        sql.push_str(&format!(" AND r.tcr_code = ${}", values.len()));
    }
    if let Some(unit) = f.business_unit_id {
        values.push(Box::new(unit));
        sql.push_str(&format!(
            " AND r.tcr_code IN (SELECT d.tcr_code FROM fiscal_devices d WHERE d.shop_id = r.shop_id
                 AND d.business_unit_id = ${})",
            values.len()
        ));
    }
    (sql, values)
}

/// The cash actions of the period summed by TCR, type and purpose.
pub async fn movements<C: GenericClient>(client: &C, f: &Filter) -> Result<Vec<MovementRow>> {
    let (conditions, values) = on_tills(f);
    let rows = client
        .query(
            &format!(
                "SELECT r.tcr_code, r.action_type, r.purpose, r.fiscal_status = 'PENDING', r.amount
                 FROM cash_actions r WHERE {conditions}"
            ),
            &refs(&values),
        )
        .await?;
    let mut sums: Vec<MovementRow> = Vec::new();
    for r in &rows {
        let tcr_code = r.get::<_, Option<String>>(0).unwrap_or_default();
        // A shop writes only the values its domain spells; a row of another is no movement.
        let (Some(action_type), Some(purpose)) = (
            r.get::<_, Option<&str>>(1).and_then(ActionType::parse),
            r.get::<_, Option<&str>>(2).and_then(Purpose::parse),
        ) else {
            continue;
        };
        let found = sums
            .iter()
            .position(|m| m.tcr_code == tcr_code && m.action_type == action_type && m.purpose == purpose);
        let i = match found {
            Some(i) => i,
            None => {
                sums.push(MovementRow {
                    tcr_code,
                    action_type,
                    purpose,
                    actions: 0,
                    waiting: 0,
                    amount: Decimal::ZERO,
                });
                sums.len() - 1
            }
        };
        sums[i].actions += 1;
        sums[i].waiting += i64::from(r.get::<_, Option<bool>>(3).unwrap_or(false));
        sums[i].amount += decimal(r.get(4));
    }
    Ok(sums)
}

/// One till's day at the HQ, with what its X or Z report needs beyond the typed rows: the shop's
/// documents to read (as the shop reads them), who made its actions, and for a day still open
/// on the till's latest day where its drawer stands.
pub struct ShopDay {
    pub shop_id: i64,
    pub row: DayRow,
    /// What a closed day's documents came to, as the shop kept it when the day closed; None for
    /// a day open (or closed before the shop kept it): its documents are read and summed.
    pub kept: Option<DayBook>,
    pub action_users: Vec<i64>,
    /// The day's cash documents, oldest first, and the numbers of what the corrective ones cancel.
    pub document_ids: Vec<i64>,
    pub originals: HashMap<i64, String>,
    /// The shop's users (name, operator code) by id.
    pub users: HashMap<i64, (String, Option<String>)>,
    pub drawer: Option<DrawerSince>,
}

/// Where an open day's drawer stands: what the till's last count left, the actions after it, and
/// the cash documents of the days after it, to read.
pub struct DrawerSince {
    pub left: Decimal,
    pub movements: Vec<Movement>,
    pub document_ids: Vec<i64>,
}

/// The cash documents the shop's drawer and day report read (`store::cash_register`'s rule): not
/// orders, nor an order's cancellation.
const CASH_SALE: &str = "i.kind = 'CASH' AND i.document_kind <> 'ORDER'
    AND NOT EXISTS (SELECT 1 FROM invoices o WHERE o.shop_id = i.shop_id AND o.id = i.original_invoice_id
        AND o.document_kind = 'ORDER')";

/// The TCRs' business days of the period, oldest first, a page of them; a day still open has
/// its cash sales so far, from the shop's cash documents linked to it (as the shop's store adds).
/// What only the shop's own row holds (its balance at the close, its count by notes and coins,
/// the mark of its last action) is read from the shipped row.
pub async fn days<C: GenericClient>(client: &C, f: &Filter, limit: i64, offset: i64) -> Result<Vec<ShopDay>> {
    let (conditions, mut values) = on_tills(f);
    values.push(Box::new(limit));
    values.push(Box::new(offset));
    let (at_limit, at_offset) = (values.len() - 1, values.len());
    let rows = client
        .query(
            &format!(
                "SELECT r.shop_id, r.id, r.tcr_code, r.business_day, r.opened_at, r.opened_automatically, r.closed_at,
                     r.expected, r.counted, r.cash_sales, s.row->>'balance' AS balance,
                     s.row->>'counted_by_denomination' AS count, s.row->>'day_book' AS day_book,
                     (SELECT d.name FROM fiscal_devices d WHERE d.shop_id = r.shop_id AND d.tcr_code = r.tcr_code
                      ORDER BY d.id LIMIT 1) AS name
                 FROM cash_days r
                 LEFT JOIN shop_rows s ON s.shop_id = r.shop_id AND s.tbl = 'cash_days' AND s.key = '[' || r.id || ']'
                 WHERE {conditions}
                 ORDER BY r.business_day, r.tcr_code COLLATE \"C\", r.shop_id, r.id
                 LIMIT ${at_limit} OFFSET ${at_offset}"
            ),
            &refs(&values),
        )
        .await?;
    let mut days = Vec::with_capacity(rows.len());
    let mut users: HashMap<i64, HashMap<i64, (String, Option<String>)>> = HashMap::new();
    for r in &rows {
        let (shop_id, id): (i64, i64) = (r.get(0), r.get(1));
        let mut day = DayRow {
            id,
            tcr_code: r.get::<_, Option<String>>(2).unwrap_or_default(),
            business_day: r.get::<_, Option<String>>(3).unwrap_or_default(),
            opened_at: r.get::<_, Option<String>>(4).unwrap_or_default(),
            opened_automatically: r.get::<_, Option<i64>>(5) == Some(1),
            closed_at: r.get(6),
            expected: r.get::<_, Option<String>>(7).map(|t| decimal(Some(t))),
            counted: r.get::<_, Option<String>>(8).map(|t| decimal(Some(t))),
            count: r.get::<_, Option<String>>("count").and_then(|t| serde_json::from_str(&t).ok()),
            balance: r.get::<_, Option<String>>("balance").map(|t| decimal(Some(t))),
            cash_sales: decimal(r.get(9)),
            actions: Vec::new(),
            name: r.get("name"),
            book: DayBook::default(),
            expected_now: None,
        };
        let kept = r
            .get::<_, Option<String>>("day_book")
            .and_then(|t| serde_json::from_str::<DayBook>(&t).ok())
            .filter(|_| day.closed_at.is_some());
        let mut action_users = Vec::new();
        for a in client
            .query(
                "SELECT a.purpose, a.action_type, a.amount, (s.row->>'user_id')::bigint AS user_id
                 FROM cash_actions a
                 LEFT JOIN shop_rows s ON s.shop_id = a.shop_id AND s.tbl = 'cash_actions' AND s.key = '[' || a.id || ']'
                 WHERE a.shop_id = $1 AND a.cash_day_id = $2
                 ORDER BY a.id",
                &[&shop_id, &id],
            )
            .await?
        {
            let action = (
                a.get::<_, Option<&str>>(0).and_then(Purpose::parse),
                a.get::<_, Option<&str>>(1).and_then(ActionType::parse),
            );
            if let (Some(purpose), Some(action_type)) = action {
                day.actions.push((purpose, action_type, decimal(a.get(2))));
            }
            action_users.extend(a.get::<_, Option<i64>>("user_id"));
        }
        let document_ids = match kept {
            Some(_) => Vec::new(),
            None => document_ids(client, "i.cash_day_id = $2", &[&shop_id, &id]).await?,
        };
        let originals = originals_of(client, shop_id, &document_ids).await?;
        let mut drawer = None;
        if day.closed_at.is_none() {
            day.cash_sales = open_day_sales(client, shop_id, id).await?;
            drawer = drawer_since(client, shop_id, &day).await?;
        }
        let shop_users = match users.get(&shop_id) {
            Some(known) => known.clone(),
            None => {
                let read = users_of(client, shop_id).await?;
                users.insert(shop_id, read.clone());
                read
            }
        };
        days.push(ShopDay {
            shop_id,
            row: day,
            kept,
            action_users,
            document_ids,
            originals,
            users: shop_users,
            drawer,
        });
    }
    Ok(days)
}

/// The shop's cash documents matching `condition` (on `i`, with `$1` the shop and `$2`, `$3` the
/// arguments after it), oldest first.
async fn document_ids<C: GenericClient>(
    client: &C,
    condition: &str,
    args: &[&(dyn tokio_postgres::types::ToSql + Sync)],
) -> Result<Vec<i64>> {
    let rows = client
        .query(
            &format!("SELECT i.id FROM invoices i WHERE i.shop_id = $1 AND {condition} AND {CASH_SALE} ORDER BY i.id"),
            args,
        )
        .await?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

/// The numbers of the invoices the corrective documents among `ids` cancel, by id.
async fn originals_of<C: GenericClient>(
    client: &C,
    shop_id: i64,
    ids: &[i64],
) -> Result<HashMap<i64, String>> {
    let rows = client
        .query(
            "SELECT o.id, o.number FROM invoices i JOIN invoices o ON o.shop_id = i.shop_id AND o.id = i.original_invoice_id
             WHERE i.shop_id = $1 AND i.id = ANY($2)",
            &[&shop_id, &ids],
        )
        .await?;
    Ok(rows.iter().map(|r| (r.get(0), r.get::<_, Option<String>>(1).unwrap_or_default())).collect())
}

async fn users_of<C: GenericClient>(
    client: &C,
    shop_id: i64,
) -> Result<HashMap<i64, (String, Option<String>)>> {
    let rows =
        client.query("SELECT id, name, operator_code FROM users WHERE shop_id = $1", &[&shop_id]).await?;
    Ok(rows
        .iter()
        .map(|r| (r.get(0), (r.get::<_, Option<String>>(1).unwrap_or_default(), r.get(2))))
        .collect())
}

/// An open day that is its till's latest: what the till's last count left in the drawer, the
/// actions after that count, and the cash documents of the days after it (as the shop's
/// `store::cash_register::drawer_expected` reads them); None for an older day left open.
async fn drawer_since<C: GenericClient>(
    client: &C,
    shop_id: i64,
    day: &DayRow,
) -> Result<Option<DrawerSince>> {
    let latest: Option<i64> = client
        .query_one(
            "SELECT MAX(id) FROM cash_days WHERE shop_id = $1 AND tcr_code = $2",
            &[&shop_id, &day.tcr_code],
        )
        .await?
        .get(0);
    if latest != Some(day.id) {
        return Ok(None);
    }
    let count = client
        .query_opt(
            "SELECT r.id, r.counted, (s.row->>'drawer_mark')::bigint
             FROM cash_days r
             LEFT JOIN shop_rows s ON s.shop_id = r.shop_id AND s.tbl = 'cash_days' AND s.key = '[' || r.id || ']'
             WHERE r.shop_id = $1 AND r.tcr_code = $2 AND r.closed_at IS NOT NULL ORDER BY r.id DESC LIMIT 1",
            &[&shop_id, &day.tcr_code],
        )
        .await?;
    let (counted_day, left, mark) = match count {
        Some(c) => {
            let counted_day: i64 = c.get(0);
            let withdrawn = client
                .query(
                    "SELECT amount FROM cash_actions WHERE shop_id = $1 AND cash_day_id = $2 AND purpose = 'close'",
                    &[&shop_id, &counted_day],
                )
                .await?
                .iter()
                .map(|r| decimal(r.get(0)))
                .sum::<Decimal>();
            let left = crate::domain::drawer::left_at_count(decimal(c.get(1)), withdrawn)
                .map_err(|_| super::Error::Overflow)?;
            (counted_day, left, c.get::<_, Option<i64>>(2).unwrap_or_default())
        }
        None => (0, Decimal::ZERO, 0),
    };
    let movements = client
        .query(
            "SELECT action_type, amount FROM cash_actions WHERE shop_id = $1 AND tcr_code = $2 AND id > $3 ORDER BY id",
            &[&shop_id, &day.tcr_code, &mark],
        )
        .await?
        .iter()
        .filter_map(|r| {
            Some(Movement {
                action_type: r.get::<_, Option<&str>>(0).and_then(ActionType::parse)?,
                amount: decimal(r.get(1)),
            })
        })
        .collect();
    let after = "i.cash_day_id IN (SELECT d.id FROM cash_days d WHERE d.shop_id = $1 AND d.tcr_code = $2 AND d.id > $3)";
    let document_ids = document_ids(client, after, &[&shop_id, &day.tcr_code, &counted_day]).await?;
    Ok(Some(DrawerSince { left, movements, document_ids }))
}

/// A day still open: its cash documents' gross in lek, a self-invoice's paid out (orders and
/// their cancellations left out), as the shop's balance counts them.
async fn open_day_sales<C: GenericClient>(client: &C, shop_id: i64, day_id: i64) -> Result<Decimal> {
    let rows = client
        .query(
            "SELECT i.gross_all, i.self_issue_type IS NOT NULL FROM invoices i
             WHERE i.shop_id = $1 AND i.cash_day_id = $2 AND i.kind = 'CASH' AND i.document_kind <> 'ORDER'
                 AND NOT EXISTS (SELECT 1 FROM invoices o WHERE o.shop_id = i.shop_id
                     AND o.id = i.original_invoice_id AND o.document_kind = 'ORDER')",
            &[&shop_id, &day_id],
        )
        .await?;
    let sales = rows.iter().map(|r| crate::domain::cash_register::CashSale {
        gross_all: decimal(r.get(0)),
        self_issued: r.get(1),
    });
    crate::domain::money::checked_sum(sales.map(crate::domain::cash_register::CashSale::signed))
        .map_err(|_| super::Error::Overflow)
}

/// A page of the corrective documents of the period, newest first, as the reversals report
/// lists them (their gross in lek as the shop stored it).
pub async fn reversals<C: GenericClient>(
    client: &C,
    f: &Filter,
    limit: i64,
    offset: i64,
) -> Result<Vec<ReversalLine>> {
    let (conditions, mut values) = f.on(super::filter::ON_INVOICES);
    values.push(Box::new(limit));
    values.push(Box::new(offset));
    let (at_limit, at_offset) = (values.len() - 1, values.len());
    let rows = client
        .query(
            &format!(
                "SELECT i.id, i.number, i.kind, i.issued_at, i.original_invoice_id, i.gross_all, i.operator_code
                 FROM invoices i WHERE i.document_kind = 'CORRECTIVE' AND {conditions}
                 ORDER BY i.issue_date DESC, i.shop_id, i.id DESC LIMIT ${at_limit} OFFSET ${at_offset}"
            ),
            &refs(&values),
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| ReversalLine {
            id: r.get(0),
            number: r.get(1),
            invoice_type: crate::domain::document::InvoiceType::parse(r.get(2))
                .map_or("CASH", |k| k.as_str()),
            reversed_at: Some(stored_time(r.get(3))),
            original_invoice_id: r.get(4),
            gross: decimal(r.get(5)),
            operator: r.get(6),
        })
        .collect())
}

/// The warehouse transfer notes of the period, as the notes report reads them (a destination
/// unit named as its shop names it); a note whose point no longer parses is left out.
pub async fn wtn_notes<C: GenericClient>(
    client: &C,
    f: &Filter,
) -> Result<Vec<crate::domain::wtn::ReportNote>> {
    let rows = client
        .query(
            "SELECT w.fwtnic IS NOT NULL, w.value_of_goods, w.destination_unit_id, u.name, w.destination_point,
                 w.destination_city, w.destination_address
             FROM wtns w LEFT JOIN business_units u ON u.shop_id = w.shop_id AND u.id = w.destination_unit_id
             WHERE w.issue_date >= $1 AND w.issue_date <= $2 AND ($3::bigint IS NULL OR w.shop_id = $3)
             ORDER BY w.shop_id, w.id",
            &[&f.period.from.to_string(), &f.period.to.to_string(), &f.shop_id],
        )
        .await?;
    Ok(rows
        .iter()
        .filter_map(|r| {
            let point = crate::domain::wtn::Point::parse(r.get::<_, Option<&str>>(4).unwrap_or_default())?;
            Some(crate::domain::wtn::ReportNote {
                fiscalized: r.get(0),
                value_of_goods: decimal(r.get(1)),
                destination: crate::domain::wtn::Destination {
                    unit_id: r.get(2),
                    unit_name: r.get(3),
                    point,
                    city: r.get::<_, Option<String>>(5).unwrap_or_default(),
                    address: r.get::<_, Option<String>>(6).unwrap_or_default(),
                },
            })
        })
        .collect())
}
